import { listen } from '../api/server.js';
import { boot, type BootOptions } from '../runtime/bootstrap.js';
import { createServices } from '../runtime/services.js';
import { installShutdown } from '../runtime/shutdown.js';
import { startWorkers } from '../workers/start.js';
import type { Context } from '../runtime/context.js';
import type { Services } from '../runtime/services.js';

/** Scripts edited on disk while Steward was down become pending versions before anything runs. */
async function reloadScripts(ctx: Context, services: Services): Promise<void> {
  try {
    await services.scripts.reloadFromDisk();
  } catch (err) {
    ctx.log.warn({ err }, 'could not import scripts from disk');
  }
}

type RoleOptions = Pick<BootOptions, 'configFile' | 'env'>;

/** `steward start`: API, workers and (when configured) the supervised engine in one process. */
export async function runStart(options: RoleOptions): Promise<void> {
  const ctx = await boot({ ...options, allowEmbeddedRedis: true });
  const services = await createServices(ctx, { superviseEngine: true });
  await reloadScripts(ctx, services);
  const workers = await startWorkers(ctx, services);
  const app = await listen(ctx, services);
  ctx.lifecycle.setCheck('mcp_server', true);
  ctx.lifecycle.markReady();
  // The engine starts in the background: until it answers, session endpoints say 503.
  void services.engine.start();
  installShutdown(ctx, async () => {
    await app.close();
    await workers.close();
    await services.engine.stop();
  });
}

/** `steward api`: the HTTP API only; run several behind a load balancer. */
export async function runApi(options: RoleOptions): Promise<void> {
  const ctx = await boot({ ...options, allowEmbeddedRedis: false });
  const services = await createServices(ctx);
  await reloadScripts(ctx, services);
  const app = await listen(ctx, services);
  ctx.lifecycle.setCheck('mcp_server', true);
  ctx.lifecycle.markReady();
  void services.engine.start();
  installShutdown(ctx, async () => {
    await app.close();
    await services.engine.stop();
  });
}

/** `steward worker`: BullMQ processors (script runs in Piscina threads, schedule runs). */
export async function runWorker(options: RoleOptions): Promise<void> {
  const ctx = await boot({ ...options, allowEmbeddedRedis: false });
  const services = await createServices(ctx);
  await reloadScripts(ctx, services);
  const workers = await startWorkers(ctx, services);
  ctx.lifecycle.markReady();
  installShutdown(ctx, () => workers.close());
}
