import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScriptStore, type ScriptStore } from '../../src/scripts/script-store.js';
import { keys } from '../../src/store/keys.js';
import type { Redis } from '../../src/store/redis.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

let prefix: string;
let redis: Redis;
let store: ScriptStore;
const who = { author: 'admin', message: 'created' };

beforeAll(() => {
  prefix = uniquePrefix('script-store');
  redis = storeRedis(prefix);
  store = createScriptStore({ redis });
});
afterAll(async () => {
  redis.disconnect();
  await dropPrefix(prefix);
});

describe('script store', () => {
  it('serialises concurrent updates: every one becomes its own version', async () => {
    await store.create('busy.star', 'result = 0\n', who);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.update('busy.star', `result = ${i + 1}\n`, { author: 'admin', message: 'updated' }),
      ),
    );
    const versions = await store.versions('busy.star');
    expect(versions).toHaveLength(21);
    expect(new Set(versions.map((v) => v.commit)).size).toBe(21);
    const record = await store.mustGet('busy.star');
    expect(record.head).toBe(versions[0]?.commit);
    const head = await store.version('busy.star', record.head);
    expect(head?.source).toBe(record.source);
    expect(head?.hash).toBe(record.hash);
  });

  it('creates a name once when two writers race', async () => {
    const results = await Promise.allSettled([
      store.create('race.star', 'result = 1\n', who),
      store.create('race.star', 'result = 2\n', who),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await store.versions('race.star')).toHaveLength(1);
  });

  it('keeps the last 100 runs, newest first, and none after a delete', async () => {
    await store.create('runs.star', 'result = 1\n', who);
    for (let i = 0; i < 105; i++) {
      await store.recordRun('runs.star', {
        timestamp: new Date(1_700_000_000_000 + i).toISOString(),
        success: i % 2 === 0,
        duration_ms: i,
      });
    }
    const history = await store.executionHistory('runs.star');
    expect(history).toHaveLength(100);
    expect(history[0]?.duration_ms).toBe(104);
    await store.remove('runs.star');
    await store.recordRun('runs.star', { timestamp: 'x', success: true, duration_ms: 1 });
    expect(await redis.exists(keys.scriptHistory('runs.star'))).toBe(0);
  });

  it('keeps the status field that /metrics counts', async () => {
    await store.create('metric.star', 'result = 1\n', who);
    expect(await redis.hget(keys.script('metric.star'), 'status')).toBe('pending');
    await store.approve('metric.star', 'admin');
    expect(await redis.hget(keys.script('metric.star'), 'status')).toBe('approved');
    expect(await redis.sismember(keys.scriptIndex(), 'metric.star')).toBe(1);
  });
});
