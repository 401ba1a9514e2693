import { afterAll, describe, expect, it } from 'vitest';
import { createTokenBucketRepository } from '../../src/store/token-bucket-repository.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

describe('token buckets in Redis', () => {
  const prefix = uniquePrefix('buckets');
  const redis = storeRedis(prefix);
  afterAll(async () => {
    await dropPrefix(prefix);
    redis.disconnect();
  });

  it('gives each client of a scope its own bucket of the capacity', async () => {
    const buckets = createTokenBucketRepository(redis);
    const takes = async (scope: string, client: string, n: number) => {
      let taken = 0;
      for (let i = 0; i < n; i++) if (await buckets.take(scope, client, 1, 3)) taken++;
      return taken;
    };
    expect(await takes('s', 'a', 5)).toBe(3);
    expect(await takes('s', 'b', 5)).toBe(3);
    expect(await takes('other', 'a', 5)).toBe(3);
    expect(await redis.hget('ratelimit:s:bucket:a', 'tokens')).toMatch(/^0(\.\d+)?$/);
  });
});
