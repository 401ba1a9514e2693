import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { errorsPlugin } from '../../src/api/plugins/errors.js';
import { scriptRoutes } from '../../src/api/routes/scripts.js';
import { createFileMirror } from '../../src/scripts/file-mirror.js';
import { createScriptRunner, type ScriptRunner } from '../../src/scripts/script-runner.js';
import { createScriptService, type ScriptService } from '../../src/scripts/script-service.js';
import { createScriptStore } from '../../src/scripts/script-store.js';
import { createStatsStore } from '../../src/store/stats-store.js';
import { createTestContext, type TestContext } from '../support/app.js';

export interface ScriptsHarness extends TestContext {
  app: FastifyInstance;
  scripts: ScriptService;
  runner: ScriptRunner;
}

/**
 * The scripts plugin on a bare Fastify (errors plugin + zod compilers) over a fresh prefix, with
 * a user set as the authentication guard would. Runs need a worker: see the worker tests.
 */
export async function createScriptsHarness(
  overrides: Record<string, unknown> = {},
  redact: (text: string) => string = (t) => t,
): Promise<ScriptsHarness> {
  const base = await createTestContext(overrides, 'scripts');
  const { ctx } = base;
  const store = createScriptStore({ redis: ctx.redis });
  const mirror = createFileMirror(ctx.config.paths.scripts);
  const scripts = createScriptService({ store, mirror, log: ctx.log });
  const runner = createScriptRunner({
    store,
    mirror,
    queues: ctx.queues,
    stats: createStatsStore(ctx.redis),
    wallTimeMs: ctx.config.scripts.limits.wall_time,
    redact,
    log: ctx.log,
  });
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(errorsPlugin);
  app.decorateRequest('user', null);
  app.addHook('onRequest', async (req) => {
    (req as unknown as { user: unknown }).user = { username: 'alice', role: 'admin' };
  });
  await app.register(scriptRoutes, { prefix: '/api', scripts, runner });
  await app.ready();
  return {
    ...base,
    app,
    scripts,
    runner,
    async close() {
      await app.close();
      await base.close();
    },
  };
}
