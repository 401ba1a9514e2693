import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.js';
import { boot } from '../../src/runtime/bootstrap.js';
import { DEFAULT_REDIS_URL, redisAnswers } from '../../src/store/embedded-redis.js';
import { dropPrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';

const prefix = uniquePrefix('boot');
const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-boot-'));
afterAll(async () => {
  await dropPrefix(prefix);
  rmSync(dir, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}) => ({
  STEWARD_REDIS_PREFIX: prefix,
  STEWARD_DATA_DIR: path.join(dir, 'data'),
  STEWARD_WORKSPACE: path.join(dir, 'workspace'),
  STEWARD_LOG_LEVEL: 'silent',
  ...extra,
});

describe('boot', () => {
  it('loads the config from the environment and connects to REDIS_URL', async () => {
    const ctx = await boot({ env: env({ REDIS_URL: testRedisUrl() }), allowEmbeddedRedis: false });
    try {
      expect(ctx.redisTarget).toEqual({ url: testRedisUrl(), prefix });
      expect(ctx.config.paths.data).toBe(path.join(dir, 'data'));
      expect(ctx.env.REDIS_URL).toBe(testRedisUrl());
      expect(await ctx.redis.ping()).toBe('PONG');
    } finally {
      await ctx.close();
    }
  });

  it('reads the named config file, with overrides on top', async () => {
    const file = path.join(dir, 'steward.yaml');
    writeFileSync(file, `redis:\n  url: ${testRedisUrl()}\nserver:\n  port: 9999\n`);
    const ctx = await boot({
      configFile: file,
      env: env(),
      allowEmbeddedRedis: false,
      overrides: { 'server.port': 9123 },
    });
    try {
      expect(ctx.config.file).toBe(file);
      expect(ctx.config.server.port).toBe(9123);
      expect(ctx.redisTarget.url).toBe(testRedisUrl());
    } finally {
      await ctx.close();
    }
  });

  it('throws the config error before touching Redis', async () => {
    await expect(
      boot({
        env: env({ REDIS_URL: 'redis://127.0.0.1:1', STEWARD_LOG_LEVEL: 'loud' }),
        allowEmbeddedRedis: false,
      }),
    ).rejects.toBeInstanceOf(ConfigError);
  });

  it('without a Redis URL and nothing on the default port, says how to fix it', async (t) => {
    // Only reachable where nothing answers on the default port; the machines this project runs
    // on have a Redis there, which the fallback would (rightly) use instead.
    if (await redisAnswers(DEFAULT_REDIS_URL)) t.skip();
    await expect(boot({ env: env(), allowEmbeddedRedis: false })).rejects.toThrow(
      /no Redis answers at redis:\/\/127\.0\.0\.1:6379; set REDIS_URL/,
    );
  });
});
