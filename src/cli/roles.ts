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

interface RoleParts {
  /** `steward start` may run a private redis-server and supervises the engine. */
  allInOne: boolean;
  http: boolean;
  workers: boolean;
}

/** Boots one process with the parts of its role, and stops them in reverse on SIGTERM. */
async function runRole(options: RoleOptions, parts: RoleParts): Promise<void> {
  const ctx = await boot({ ...options, allowEmbeddedRedis: parts.allInOne });
  const services = await createServices(ctx, { superviseEngine: parts.allInOne });
  await reloadScripts(ctx, services);
  const workers = parts.workers ? await startWorkers(ctx, services) : null;
  const app = parts.http ? await listen(ctx, services) : null;
  if (app) ctx.lifecycle.setCheck('mcp_server', true);
  ctx.lifecycle.markReady();
  // The engine starts in the background: until it answers, session endpoints say 503.
  if (app) void services.engine.start();
  installShutdown(ctx, async () => {
    await app?.close();
    await workers?.close();
    if (app) await services.engine.stop();
  });
}

/** `steward start`: API, workers and (when configured) the supervised engine in one process. */
export const runStart = (options: RoleOptions) =>
  runRole(options, { allInOne: true, http: true, workers: true });

/** `steward api`: the HTTP API only; run several behind a load balancer. */
export const runApi = (options: RoleOptions) =>
  runRole(options, { allInOne: false, http: true, workers: false });

/** `steward worker`: BullMQ processors (script runs in Piscina threads, schedule runs). */
export const runWorker = (options: RoleOptions) =>
  runRole(options, { allInOne: false, http: false, workers: true });
