import { afterAll, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { createStatsRepository } from '../../src/store/stats-repository.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

describe('stats repository', () => {
  const prefix = uniquePrefix('stats-repo');
  const redis = storeRedis(prefix);
  const stats = createStatsRepository(redis);
  afterAll(async () => {
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it('reads zeros before any run', async () => {
    expect(await stats.read()).toEqual({ total: 0, success: 0, failed: 0, avg_duration_ms: 0 });
  });

  it('counts runs by outcome and averages their rounded durations', async () => {
    await stats.record(true, 10.4);
    await stats.record(false, 20.6);
    await stats.record(true, -5);
    expect(await stats.read()).toEqual({
      total: 3,
      success: 2,
      failed: 1,
      // 10 + 21 + 0 (negative durations count as 0) over 3 runs, to two decimals.
      avg_duration_ms: 10.33,
    });
    expect(await redis.hget(keys.executionStats(), 'duration_sum')).toBe('31');
  });

  it('is shared by every connection to the deployment', async () => {
    const other = storeRedis(prefix);
    try {
      await createStatsRepository(other).record(true, 1);
      expect((await stats.read()).total).toBe(4);
    } finally {
      other.disconnect();
    }
  });
});
