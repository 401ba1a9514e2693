import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DEFAULT_MESSAGE_LIMIT, type SessionsService } from '../../engine/sessions-service.js';

const params = z.object({ id: z.string().min(1).max(128) });
const time = z.object({ created: z.number().int(), updated: z.number().int() });

export const sessionSchema = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  directory: z.string(),
  version: z.string(),
  time,
  active: z.boolean().optional(),
});

export const messageSchema = z.object({
  id: z.string(),
  sessionID: z.string(),
  role: z.string(),
  // Engine parts pass through as they are: every field of every part type is kept.
  parts: z.array(z.unknown()),
  time,
});

const messagesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(DEFAULT_MESSAGE_LIMIT),
});

/** `/api/sessions`: AI sessions proxied to the engine (SPEC "Sessions"). */
export const sessionRoutes: FastifyPluginAsync<{ sessions: SessionsService }> = async (
  app,
  { sessions },
) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/sessions', { schema: { response: { 200: z.array(sessionSchema) } } }, async () =>
    sessions.list(),
  );

  r.post('/sessions', { schema: { response: { 200: sessionSchema } } }, async () =>
    sessions.create(),
  );

  r.get('/sessions/:id', { schema: { params, response: { 200: sessionSchema } } }, async (req) =>
    sessions.get(req.params.id),
  );

  r.delete(
    '/sessions/:id',
    { schema: { params, response: { 200: z.object({ ok: z.literal(true) }) } } },
    async (req) => sessions.remove(req.params.id),
  );

  r.get(
    '/sessions/:id/messages',
    { schema: { params, querystring: messagesQuery, response: { 200: z.array(messageSchema) } } },
    async (req) => sessions.messages(req.params.id, req.query.limit),
  );
};
