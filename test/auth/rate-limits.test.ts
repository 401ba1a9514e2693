import { afterAll, describe, expect, it } from 'vitest';
import { createRateLimit } from '../../src/auth/rate-limits.js';
import { createRedis } from '../../src/store/redis.js';
import { dropPrefix, storeRedis, testRedisUrl, uniquePrefix } from '../support/redis.js';

const prefix = uniquePrefix('rate-limits');
const redis = storeRedis(prefix);
afterAll(async () => {
  redis.disconnect();
  await dropPrefix(prefix);
});

describe('fixed-window rate limit', () => {
  it('allows `perMinute` requests of a client, then refuses with a retry time', async () => {
    const limit = createRateLimit(redis, 'a', 3);
    expect(limit.limit).toBe(3);
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limit.consume('ip:1.2.3.4'));
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    const refused = decisions[3]!;
    expect(refused.limit).toBe(3);
    expect(refused.retryAfter).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfter).toBeLessThanOrEqual(60);
    const now = Date.now() / 1000;
    expect(refused.resetAt).toBeGreaterThanOrEqual(Math.floor(now));
    expect(refused.resetAt).toBeLessThanOrEqual(Math.ceil(now) + 60);
  });

  it('counts each client and each scope separately', async () => {
    const login = createRateLimit(redis, 'b-login', 1);
    const api = createRateLimit(redis, 'b-api', 1);
    expect((await login.consume('ip:1')).allowed).toBe(true);
    expect((await login.consume('ip:1')).allowed).toBe(false);
    expect((await login.consume('ip:2')).allowed).toBe(true);
    expect((await api.consume('ip:1')).allowed).toBe(true);
  });

  it('is shared by every process on the deployment prefix, under that prefix', async () => {
    const other = storeRedis(prefix);
    try {
      const a = createRateLimit(redis, 'c', 2);
      const b = createRateLimit(other, 'c', 2);
      expect((await a.consume('user:admin')).allowed).toBe(true);
      expect((await b.consume('user:admin')).allowed).toBe(true);
      expect((await a.consume('user:admin')).allowed).toBe(false);
    } finally {
      other.disconnect();
    }
    const raw = createRedis({ url: testRedisUrl(), prefix: '' }, 'bullmq');
    try {
      const found = await raw.keys(`${prefix}ratelimit:c*`);
      expect(found.length).toBeGreaterThan(0);
    } finally {
      raw.disconnect();
    }
  });

  it('opens a new window once the old one ends', async () => {
    const limit = createRateLimit(redis, 'd', 1, 1);
    expect((await limit.consume('ip:9')).allowed).toBe(true);
    const refused = await limit.consume('ip:9');
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfter).toBe(1);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await limit.consume('ip:9')).allowed).toBe(true);
  });

  it('passes store failures through instead of allowing or refusing', async () => {
    const closed = storeRedis(prefix);
    closed.disconnect();
    const limit = createRateLimit(closed, 'e', 5);
    await expect(limit.consume('ip:1')).rejects.toThrow();
  });
});
