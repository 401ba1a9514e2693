import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log/logger.js';
import { createContext } from '../../src/runtime/context.js';
import { dropPrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';

const prefix = uniquePrefix('context');
const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-context-'));
const config = loadConfig({
  cwd: dir,
  env: {},
  overrides: { 'redis.url': testRedisUrl(), 'redis.prefix': prefix, data_dir: 'data' },
});
afterAll(async () => {
  await dropPrefix(prefix);
  rmSync(dir, { recursive: true, force: true });
});

describe('context', () => {
  it('connects one store connection under the configured prefix', async () => {
    const ctx = await createContext(config, createLogger('silent'), testRedisUrl(), { A: '1' });
    try {
      expect(ctx.redisTarget).toEqual({ url: testRedisUrl(), prefix });
      expect(ctx.env).toEqual({ A: '1' });
      expect(ctx.lifecycle.phase).toBe('starting');
      await ctx.redis.set('probe', 'x');
      const raw = await ctx.redis.duplicate({ keyPrefix: '' });
      expect(await raw.get(`${prefix}probe`)).toBe('x');
      raw.disconnect();
    } finally {
      await ctx.close();
    }
  });

  it('runs closers in reverse order, goes on past a failing one, and closes only once', async () => {
    const ctx = await createContext(config, createLogger('silent'), testRedisUrl());
    const order: string[] = [];
    ctx.onClose(() => void order.push('first'));
    ctx.onClose(() => {
      order.push('failing');
      throw new Error('boom');
    });
    ctx.onClose(async () => void order.push('last'));
    await ctx.close();
    await ctx.close();
    expect(order).toEqual(['last', 'failing', 'first']);
    await expect(ctx.redis.get('probe')).rejects.toThrow(/Connection is closed/);
  });
});
