import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createToolRateLimiter } from '../../src/mcp/rate-limit.js';
import type { Redis } from '../../src/store/redis.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

/** How many of `n` back-to-back requests of `key` are allowed. */
async function allowed(limiter: ReturnType<typeof createToolRateLimiter>, n: number, key = 'k') {
  let count = 0;
  for (let i = 0; i < n; i++) if (await limiter.allow(key)) count++;
  return count;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('createToolRateLimiter (in memory, one stdio connection)', () => {
  it('allows a burst and refuses the rest, with a message naming the limits', async () => {
    const limiter = createToolRateLimiter({ per_second: 10, burst: 20 });
    expect(await allowed(limiter, 25)).toBe(20);
    expect(limiter.message).toBe('Rate limit exceeded: at most 10 requests per second (burst 20)');
  });

  it('counts each connection on its own', async () => {
    const limiter = createToolRateLimiter({ per_second: 2, burst: 3 });
    expect(await allowed(limiter, 5, 'a')).toBe(3);
    expect(await allowed(limiter, 5, 'b')).toBe(3);
  });

  it('gives the per-second allowance back after a second', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const limiter = createToolRateLimiter({ per_second: 10, burst: 20 });
    expect(await allowed(limiter, 30)).toBe(20);
    vi.advanceTimersByTime(1_001);
    expect(await allowed(limiter, 30)).toBe(10);
  });

  // Bug: SPEC.md says "10 requests per second sustained, burst 20", but the burst bucket of
  // `burst - per_second` points refills every 2 s on top of the 1 s bucket, so a client that keeps
  // sending gets per_second + (burst - per_second) / 2 = 15 requests per second for as long as it
  // likes, not 10.
  it.fails('holds a sustained client to per_second once the burst is spent', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const limiter = createToolRateLimiter({ per_second: 10, burst: 20 });
    let total = 0;
    for (let second = 0; second < 10; second++) {
      total += await allowed(limiter, 100);
      vi.advanceTimersByTime(1_001);
    }
    // A token bucket of rate 10/s and depth 20 admits at most 20 + 10 × 9 in these 10 windows.
    expect(total).toBeLessThanOrEqual(110);
  });

  // Bug: with burst equal to (or below) per_second there is no burst to allow, but the backing
  // bucket is given Math.max(1, …) points, so one request more than per_second gets through.
  it.fails('allows exactly per_second when burst adds nothing', async () => {
    const limiter = createToolRateLimiter({ per_second: 5, burst: 5 });
    expect(await allowed(limiter, 10)).toBe(5);
  });
});

describe('createToolRateLimiter (in Redis, shared by every API replica)', () => {
  const prefix = uniquePrefix('mcp-rate');
  const connections: Redis[] = [];
  afterAll(async () => {
    for (const redis of connections) redis.disconnect();
    await dropPrefix(prefix);
  });

  it('counts one token across replicas', async () => {
    const replica = () => {
      const redis = storeRedis(prefix);
      connections.push(redis);
      return createToolRateLimiter({ per_second: 3, burst: 5 }, redis);
    };
    const a = replica();
    const b = replica();
    expect(await allowed(a, 3, 'token-1')).toBe(3);
    expect(await allowed(b, 5, 'token-1')).toBe(2);
    expect(await allowed(a, 1, 'token-1')).toBe(0);
    expect(await allowed(b, 1, 'token-2')).toBe(1);
  });
});
