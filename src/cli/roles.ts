import { listen } from '../api/server.js';
import { listenStandby, type StandbyServer } from '../api/standby-server.js';
import type { EarlyStandby } from './early-standby.js';
import { announceListening, prepareSetup } from './first-run.js';
import type { FastifyInstance } from 'fastify';
import { boot, waitForStore, type BootOptions } from '../runtime/bootstrap.js';
import type { Context } from '../runtime/context.js';
import { installShutdown } from '../runtime/shutdown.js';
import { ServiceUnavailableError } from '../errors/request-errors.js';
import { whenReady } from '../store/redis.js';
import type { StdioServer } from '../mcp/stdio.js';
import { startWorkers } from '../workers/start.js';
import {
  buildAppDeps,
  buildCore,
  buildServerParts,
  scriptWorkerDeps,
  toolsetDeps,
  type Core,
} from './compose.js';

type RoleOptions = Pick<BootOptions, 'configFile' | 'env'> & {
  /** The port's standby, listening since the process started (HTTP roles). */
  standby?: EarlyStandby | null;
};

/** Scripts edited on disk while Steward was down become pending versions before anything runs. */
async function reloadScripts(ctx: Context, core: Core): Promise<void> {
  try {
    await core.scripts.reloadFromDisk();
  } catch (err) {
    ctx.log.warn({ err }, 'could not import scripts from disk');
  }
}

interface ServerRole {
  /** `steward start` may run a private redis-server and supervises the engine. */
  allInOne: boolean;
  http: boolean;
  workers: boolean;
}

/**
 * A shutdown ends within 10 s: grace and requests share 5.5 s, then workers 1.5 s, the engine
 * 1 s and the context's closers 1 s (`installShutdown`).
 */
const drainBudgetMs = 5_500;
const workersCloseBudgetMs = 1_500;
const engineStopBudgetMs = 1_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Whether `work` settles within `ms`; it goes on either way. */
async function finishes(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((r) => {
    timer = setTimeout(() => r(false), ms);
  });
  const done = work.then(
    () => true,
    () => true,
  );
  return Promise.race([done, late]).finally(() => clearTimeout(timer));
}

/**
 * Boots one server process with the parts of its role, and stops them in reverse on SIGTERM.
 * While Redis does not answer, an HTTP role keeps a standby server on its port (probes and 503s)
 * and every role waits for Redis, then builds and starts as usual.
 */
async function runServerRole(options: RoleOptions, role: ServerRole): Promise<void> {
  const ctx = await boot({
    ...(options.configFile ? { configFile: options.configFile } : {}),
    env: options.env,
    allowEmbeddedRedis: role.allInOne,
  });
  const running: {
    standby?: StandbyServer;
    app?: FastifyInstance | null;
    workers?: { close(): Promise<void> } | null;
    gateway?: { stop(): Promise<void> } | null;
    engine?: { stop(): Promise<void> };
  } = {};
  options.standby?.release();
  installShutdown(ctx, async () => {
    await running.standby?.close();
    const app = running.app;
    if (app) {
      // Load balancers see the probes' 503 for the grace and move traffic away; idle keep-alive
      // connections end now, busy ones after their response (`Connection: close`).
      app.server.closeIdleConnections();
      await sleep(ctx.config.server.shutdown_grace);
      // In-flight requests finish if they can within the budget; callers still waiting for a
      // script run then get a 503 (their queued jobs removed), and what is left is cut.
      const closed = app.close();
      const budget = drainBudgetMs - ctx.config.server.shutdown_grace;
      if (!(await finishes(closed, budget - 700))) {
        ctx.queues.abandonWaits(
          new ServiceUnavailableError(
            'Steward is shutting down and this run could not finish; try again',
          ),
        );
      }
      if (!(await finishes(closed, 600))) {
        ctx.log.warn('requests still running at shutdown; closing their connections');
        app.server.closeAllConnections();
        await finishes(closed, 500);
      }
    }
    // The chat lease is let go at once (another worker takes the chats over without waiting
    // for it to expire), beside the workers' drain.
    const closing = [running.gateway?.stop(), running.workers?.close()].filter(
      (p) => p !== undefined,
    );
    if (closing.length > 0 && !(await finishes(Promise.all(closing), workersCloseBudgetMs))) {
      ctx.log.warn('script runs still running at shutdown; leaving them');
    }
    if (running.engine) await finishes(running.engine.stop(), engineStopBudgetMs);
  });
  const { host, port } = ctx.config.server;
  const early = role.http ? options.standby : null;
  if (early) running.standby = early.server;
  if (role.http && !(await whenReady(ctx.redis, 500))) {
    if (early) early.state.reason = 'script_store';
    else running.standby = await listenStandby(host, port);
  }
  if (!(await waitForStore(ctx))) return;
  if (early) early.state.reason = 'starting';
  const core = await buildCore(ctx);
  const parts = await buildServerParts(ctx, core, { superviseEngine: role.allInOne });
  await reloadScripts(ctx, core);
  running.workers = role.workers
    ? await startWorkers(ctx, {
        schedules: parts.schedules,
        scriptRuns: scriptWorkerDeps(core),
        audit: core.audit,
      })
    : null;
  if (role.workers && parts.gateway) {
    running.gateway = parts.gateway;
    parts.gateway.start();
  }
  const appDeps = role.http ? await buildAppDeps(ctx, core, parts) : null;
  const setupToken = appDeps ? await prepareSetup(appDeps.auth) : null;
  running.app = appDeps
    ? await listen(appDeps, async () => {
        await running.standby?.close();
        delete running.standby;
      })
    : null;
  if (running.app && appDeps) announceListening(ctx, running.app, appDeps.auth, setupToken);
  if (running.app) ctx.lifecycle.setCheck('mcp_server', true);
  ctx.lifecycle.markReady();
  // The engine starts in the background: until it answers, session endpoints say 503.
  if (running.app) {
    running.engine = parts.engine;
    void parts.engine.start();
  }
}

/** `steward start`: API, workers and (when configured) the supervised engine in one process. */
export const runStart = (options: RoleOptions) =>
  runServerRole(options, { allInOne: true, http: true, workers: true });

/** `steward api`: the HTTP API only; run several behind a load balancer. */
export const runApi = (options: RoleOptions) =>
  runServerRole(options, { allInOne: false, http: true, workers: false });

/** `steward worker`: BullMQ processors (script runs in Piscina threads, schedule runs). */
export const runWorker = (options: RoleOptions) =>
  runServerRole(options, { allInOne: false, http: false, workers: true });

/**
 * `steward mcp`: the tool server on stdio, spawned by the engine. It builds the core alone (no
 * JWT secret, engine or schedules). stdout carries protocol messages only, so logs go to stderr
 * and stray console output is redirected there too.
 */
export async function runMcp(options: RoleOptions): Promise<void> {
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  const ctx = await boot({ ...options, allowEmbeddedRedis: false, logToStderr: true });
  await waitForStore(ctx);
  const core = await buildCore(ctx);
  const { createToolset } = await import('../mcp/toolset.js');
  const { serveStdio } = await import('../mcp/stdio.js');
  const toolset = createToolset(ctx, toolsetDeps(core));
  const running: { server?: StdioServer } = {};
  const shutdown = installShutdown(ctx, async () => {
    await running.server?.close();
  });
  running.server = await serveStdio(toolset, ctx.config.mcp.rate_limit, () =>
    shutdown('stdin closed'),
  );
  ctx.lifecycle.setCheck('mcp_server', true);
  ctx.lifecycle.markReady();
}

export interface EngineRoleOptions extends RoleOptions {
  /** Address OpenCode listens on (the container's, for the API and workers beside it). */
  host: string;
  port: number;
  /** An API process's tool server, e.g. `http://api:8080/mcp`. */
  mcpUrl: string;
}

/**
 * `steward engine`: the AI engine alone, for a container of its own. It is the supervised engine
 * of `steward start` (same configuration builder, working directory outside any workspace,
 * project config disabled, own tools off) except that it reaches the tools through an API's
 * `/mcp` with the MCP token. It needs no Redis, secrets key or JWT secret, so a container
 * running it holds none of them, nor Steward's data.
 */
export async function runEngine(options: EngineRoleOptions): Promise<void> {
  const { loadConfig } = await import('../config/load.js');
  const { createLogger } = await import('../log/logger.js');
  const { createLifecycle } = await import('../runtime/lifecycle.js');
  const { createEngineSupervisor } = await import('../engine/supervisor.js');
  const { ConfigError } = await import('../errors/config-error.js');
  const config = loadConfig({
    ...(options.configFile ? { file: options.configFile } : {}),
    env: options.env,
  });
  const token = config.mcp.http.token;
  if (!token) {
    throw new ConfigError(
      "steward engine reaches the tools over HTTP: set mcp.http.token (STEWARD_MCP_TOKEN) to the API processes' token",
    );
  }
  if (!config.engine.password) {
    throw new ConfigError(
      'steward engine listens for other containers: set engine.password (STEWARD_ENGINE_PASSWORD), the one the API and workers use',
    );
  }
  const log = createLogger(config.log.level, { format: config.log.format });
  const supervisor = createEngineSupervisor({
    config: {
      ...config,
      engine: {
        ...config.engine,
        command: config.engine.command ?? ['opencode'],
        port: options.port,
      },
    },
    log,
    tools: { transport: 'http', url: options.mcpUrl, token },
    hostname: options.host,
    password: config.engine.password,
    baseEnv: options.env,
  });
  const lifecycle = createLifecycle();
  installShutdown({ log, lifecycle, close: async () => {} }, () => supervisor.stop());
  // A failed first start keeps retrying in the background, as under `steward start`.
  await supervisor.start().catch((err: unknown) => log.warn({ err }, 'engine not up yet'));
  lifecycle.markReady();
}
