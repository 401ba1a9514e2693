import { afterAll, describe, expect, it } from 'vitest';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';
import { durabilityWarning } from '../../src/store/redis.js';

describe('redis factory', () => {
  const prefix = uniquePrefix('redis');
  const redis = storeRedis(prefix);
  afterAll(async () => {
    await dropPrefix(prefix);
    redis.disconnect();
  });

  it('applies the key prefix', async () => {
    await redis.set('hello', 'world');
    const raw = storeRedis('');
    expect(await raw.get(`${prefix}hello`)).toBe('world');
    raw.disconnect();
  });

  it('warns when the test Redis keeps nothing', async () => {
    expect(await durabilityWarning(redis)).toMatch(/appendonly/);
  });
});
