import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createScheduleBody,
  runEntrySchema,
  scheduleSchema,
  updateScheduleBody,
} from '../../schedules/schedule-schema.js';
import type { ScheduleService } from '../../schedules/schedule-service.js';

const params = z.object({ id: z.string().min(1) });
const statusSchema = (value: string) => z.object({ status: z.literal(value) });

/** `/api/schedules`: CRUD, enablement, manual runs and run history (SPEC "Schedules"). */
export const scheduleRoutes: FastifyPluginAsync<{ schedules: ScheduleService }> = async (
  app,
  { schedules },
) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/schedules',
    { schema: { response: { 200: z.object({ schedules: z.array(scheduleSchema) }) } } },
    async () => ({ schedules: await schedules.list() }),
  );

  r.post(
    '/schedules',
    {
      config: { audit: 'schedule.create' },
      schema: { body: createScheduleBody, response: { 201: scheduleSchema } },
    },
    async (req, reply) => {
      const created = await schedules.create(req.body);
      req.auditDetails = { id: created.id, name: created.name };
      return reply.code(201).send(created);
    },
  );

  r.get('/schedules/:id', { schema: { params, response: { 200: scheduleSchema } } }, async (req) =>
    schedules.get(req.params.id),
  );

  r.put(
    '/schedules/:id',
    {
      config: { audit: 'schedule.update' },
      schema: { params, body: updateScheduleBody, response: { 200: scheduleSchema } },
    },
    async (req) => schedules.update(req.params.id, req.body),
  );

  r.delete(
    '/schedules/:id',
    { config: { audit: 'schedule.delete' }, schema: { params } },
    async (req, reply) => {
      await schedules.remove(req.params.id);
      return reply.code(204).send();
    },
  );

  r.post(
    '/schedules/:id/enable',
    {
      config: { audit: 'schedule.enable' },
      schema: { params, response: { 200: statusSchema('enabled') } },
    },
    async (req) => {
      await schedules.setEnabled(req.params.id, true);
      return { status: 'enabled' as const };
    },
  );

  r.post(
    '/schedules/:id/disable',
    {
      config: { audit: 'schedule.disable' },
      schema: { params, response: { 200: statusSchema('disabled') } },
    },
    async (req) => {
      await schedules.setEnabled(req.params.id, false);
      return { status: 'disabled' as const };
    },
  );

  r.post(
    '/schedules/:id/run',
    {
      config: { audit: 'schedule.run' },
      schema: { params, response: { 200: statusSchema('triggered') } },
    },
    async (req) => {
      await schedules.trigger(req.params.id);
      return { status: 'triggered' as const };
    },
  );

  r.get(
    '/schedules/:id/runs',
    { schema: { params, response: { 200: z.object({ runs: z.array(runEntrySchema) }) } } },
    async (req) => ({ runs: await schedules.runs(req.params.id) }),
  );
};
