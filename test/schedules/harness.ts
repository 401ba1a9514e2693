import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { errorsPlugin } from '../../src/api/plugins/errors.js';
import { scheduleRoutes } from '../../src/api/routes/schedules.js';
import {
  createSchedules,
  type Schedules,
  type SchedulesDeps,
} from '../../src/schedules/create-schedules.js';
import { createEgress } from '../../src/net/egress.js';
import type { Context } from '../../src/runtime/context.js';
import { emptyRedactor } from '../../src/secrets/redactor.js';
import {
  startScheduleWorkers,
  type RunningScheduleWorkers,
} from '../../src/workers/schedule-runs/start-schedule-workers.js';
import { createTestContext, type TestContext } from '../support/app.js';
import { memoryTrail } from '../support/trail.js';

/** Schedules over a test context: real egress, no secrets, no script runner or engine. */
export function baseScheduleDeps(ctx: Context): SchedulesDeps {
  const { config } = ctx;
  return {
    redis: ctx.redis,
    queues: ctx.queues,
    config,
    log: ctx.log,
    egress: createEgress({
      allow: config.egress.allow,
      timeoutMs: config.egress.timeout,
      maxBodyBytes: config.egress.max_body_bytes,
      maxRedirects: config.egress.max_redirects,
    }),
    redact: (text) => emptyRedactor.redact(text),
    trail: memoryTrail(),
  };
}

export interface ScheduleHarness {
  t: TestContext;
  schedules: Schedules;
  app: FastifyInstance;
  /** Starts this process's schedule workers (reconcile first). */
  startWorkers(): Promise<RunningScheduleWorkers>;
  close(): Promise<void>;
}

/**
 * Schedule routes on a bare Fastify (errors plugin + zod compilers) over a fresh test context;
 * `deps` replaces pieces such as runScript, runAgent or redact with real functions of the test.
 */
export async function scheduleHarness(
  overrides: Record<string, unknown> = {},
  deps: Partial<SchedulesDeps> = {},
): Promise<ScheduleHarness> {
  const t = await createTestContext(overrides, 'sched');
  const schedules = createSchedules({ ...baseScheduleDeps(t.ctx), ...deps });
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(errorsPlugin);
  await app.register(
    async (api) => {
      await api.register(scheduleRoutes, { schedules: schedules.service });
    },
    { prefix: '/api' },
  );
  await app.ready();
  const workers: RunningScheduleWorkers[] = [];
  return {
    t,
    schedules,
    app,
    async startWorkers() {
      const w = await startScheduleWorkers(t.ctx, schedules);
      workers.push(w);
      return w;
    },
    async close() {
      for (const w of workers) await w.close();
      await app.close();
      await t.close();
    },
  };
}

export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
