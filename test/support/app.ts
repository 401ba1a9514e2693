import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log/logger.js';
import { createContext, type Context } from '../../src/runtime/context.js';
import { createServices, type Services, type ServicesOptions } from '../../src/runtime/services.js';
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

export interface TestApp extends TestContext {
  app: FastifyInstance;
  services: Services;
}

/** The full HTTP app on a fresh prefix, ready for `app.inject`. */
export async function createTestApp(
  overrides: Record<string, unknown> = {},
  label = 'app',
  share?: SharedDeployment,
  serviceOptions: ServicesOptions = {},
): Promise<TestApp> {
  const base = await createTestContext(overrides, label, share);
  const services = await createServices(base.ctx, serviceOptions);
  const app = await buildApp({ ctx: base.ctx, services });
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
