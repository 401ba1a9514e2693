import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from '../../src/api/app.js';
import {
  buildAppDeps,
  buildCore,
  buildServerParts,
  scriptWorkerDeps,
  type Core,
  type ServerParts,
} from '../../src/cli/compose.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log/logger.js';
import { createContext, type Context } from '../../src/runtime/context.js';
import { startWorkers, type RunningWorkers } from '../../src/workers/start.js';
import { dropPrefix, testRedisUrl, uniquePrefix } from './redis.js';

export interface TestContext {
  ctx: Context;
  prefix: string;
  dir: string;
  close(): Promise<void>;
}

/**
 * A context on the test Redis under a fresh key prefix, with its own data and workspace dirs.
 * `overrides` are dotted config keys, e.g. `{'scripts.allowlist': ['x']}`.
 */
export async function createTestContext(
  overrides: Record<string, unknown> = {},
  label = 'ctx',
  share?: SharedDeployment,
): Promise<TestContext> {
  const prefix = share?.prefix ?? uniquePrefix(label);
  const dir = share?.dir ?? mkdtempSync(path.join(os.tmpdir(), `steward-${label}-`));
  const config = loadConfig({
    cwd: dir,
    env: {},
    overrides: {
      'redis.url': testRedisUrl(),
      'redis.prefix': prefix,
      data_dir: path.join(dir, 'data'),
      workspace: path.join(dir, 'workspace'),
      'log.level': process.env.TEST_LOG_LEVEL ?? 'silent',
      ...overrides,
    },
  });
  const ctx = await createContext(config, createLogger(config.log.level), testRedisUrl());
  return {
    ctx,
    prefix,
    dir,
    async close() {
      await ctx.close();
      // A process joining another's deployment leaves its keys and files to the owner.
      if (share) return;
      await dropPrefix(prefix);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Another process of the same deployment: same Redis prefix, same data dir. */
export interface SharedDeployment {
  prefix: string;
  dir: string;
}

/** What the roles build, for tests that reach past HTTP (e.g. to create a script directly). */
export interface TestServices extends Core, ServerParts {
  auth: AppDeps['auth']['service'];
  tokens: AppDeps['auth']['tokens'];
  setupToken: AppDeps['auth']['setupToken'];
  /** The whole auth module: its signing secret, issuer and session check, for a second app. */
  authModule: AppDeps['auth'];
}

export interface TestApp extends TestContext {
  app: FastifyInstance;
  services: TestServices;
}

/** The full HTTP app on a fresh prefix, ready for `app.inject`. */
export async function createTestApp(
  overrides: Record<string, unknown> = {},
  label = 'app',
  share?: SharedDeployment,
  options: { superviseEngine?: boolean } = {},
): Promise<TestApp> {
  const base = await createTestContext(overrides, label, share);
  const core = await buildCore(base.ctx);
  const parts = await buildServerParts(base.ctx, core, {
    superviseEngine: options.superviseEngine ?? false,
  });
  const deps = await buildAppDeps(base.ctx, core, parts);
  const services: TestServices = {
    ...core,
    ...parts,
    auth: deps.auth.service,
    tokens: deps.auth.tokens,
    setupToken: deps.auth.setupToken,
    authModule: deps.auth,
  };
  const app = await buildApp(deps);
  await app.ready();
  base.ctx.lifecycle.setCheck('mcp_server', true);
  base.ctx.lifecycle.markReady();
  return {
    ...base,
    app,
    services,
    async close() {
      await app.close();
      await services.engine.stop();
      await base.close();
    },
  };
}

/** Every worker of the `steward worker` role, in this process, for an app built above. */
export function startTestWorkers(t: TestApp): Promise<RunningWorkers> {
  return startWorkers(t.ctx, {
    schedules: t.services.schedules,
    scriptRuns: scriptWorkerDeps(t.services),
    audit: t.services.audit,
  });
}
