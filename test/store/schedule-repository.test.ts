import { afterAll, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import {
  configFields,
  createScheduleRepository,
  runHistoryLimit,
  type ScheduleConfigOf,
} from '../../src/store/schedule-repository.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

describe('schedule repository', () => {
  const prefix = uniquePrefix('schedrepo');
  const redis = storeRedis(prefix);
  const repo = createScheduleRepository(redis, { parseEntry: (raw) => raw as object });
  afterAll(async () => {
    await dropPrefix(prefix);
    redis.disconnect();
  });

  const config: ScheduleConfigOf = {
    name: 'daily',
    cron_expr: '0 8 * * *',
    type: 'script',
    enabled: true,
    script_name: 'daily.star',
    output_target: { provider: 'webhook', channel_id: 'ops' },
    run_once: false,
    timezone: 'Europe/Paris',
  };

  it('writes one hash per schedule and indexes it; booleans and targets are encoded', async () => {
    const now = new Date('2026-01-02T03:04:05.000Z');
    const s = await repo.create(config, now);
    expect(s.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await redis.sismember(keys.scheduleIndex(), s.id)).toBe(1);
    expect(await redis.hgetall(keys.schedule(s.id))).toEqual({
      name: 'daily',
      cron_expr: '0 8 * * *',
      type: 'script',
      enabled: '1',
      script_name: 'daily.star',
      output_target: '{"provider":"webhook","channel_id":"ops"}',
      run_once: '0',
      timezone: 'Europe/Paris',
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      armed_at: String(now.getTime()),
    });
    expect(await repo.get(s.id)).toEqual({
      ...config,
      id: s.id,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      armed_at: now.getTime(),
      last_fire_at: 0,
      misfire_through: 0,
    });
  });

  it('getConfig leaves out the last run fields a run does not need', async () => {
    const s = await repo.create(config);
    await redis.hset(keys.schedule(s.id), {
      last_run_status: 'success',
      last_run_output: 'x'.repeat(1000),
    });
    expect((await repo.get(s.id))?.last_run_output).toHaveLength(1000);
    const c = await repo.getConfig(s.id);
    expect(c?.last_run_output).toBeUndefined();
    expect(c?.last_run_status).toBeUndefined();
    expect(c?.output_target).toEqual(config.output_target);
  });

  it('patch writes only the changes, deletes cleared fields and re-arms on request', async () => {
    const s = await repo.create(config, new Date(1000));
    const kept = await repo.patch(s.id, { name: 'renamed', output_target: undefined }, false);
    expect(kept).toMatchObject({ name: 'renamed', armed_at: 1000, script_name: 'daily.star' });
    expect(kept?.output_target).toBeUndefined();
    expect(await redis.hexists(keys.schedule(s.id), 'output_target')).toBe(0);
    const rearmed = await repo.patch(s.id, { enabled: true }, true);
    expect(rearmed?.armed_at).toBeGreaterThan(1000);
    expect(await repo.patch('unknown', { name: 'x' }, false)).toBeNull();
    expect(await redis.exists(keys.schedule('unknown'))).toBe(0);
  });

  it('configFields deletes absent optional values instead of storing them empty', () => {
    expect(configFields({ prompt: undefined, enabled: false })).toEqual({
      set: { enabled: '0' },
      del: ['prompt'],
    });
  });

  it('remove deletes the hash, the history and the index entry, once', async () => {
    const s = await repo.create(config);
    await redis.lpush(keys.scheduleRuns(s.id), '{}');
    expect(await repo.remove(s.id)).toBe(true);
    expect(await redis.exists(keys.schedule(s.id), keys.scheduleRuns(s.id))).toBe(0);
    expect(await redis.sismember(keys.scheduleIndex(), s.id)).toBe(0);
    expect(await repo.remove(s.id)).toBe(false);
  });

  it('lists by creation time and reads history newest first through parseEntry', async () => {
    const p2 = uniquePrefix('schedrepo2');
    const r2 = storeRedis(p2);
    const seen: unknown[] = [];
    const repo2 = createScheduleRepository(r2, {
      parseEntry: (raw) => {
        seen.push(raw);
        return raw as object;
      },
    });
    try {
      const b = await repo2.create({ ...config, name: 'b' }, new Date(2000));
      const a = await repo2.create({ ...config, name: 'a' }, new Date(1000));
      expect((await repo2.list()).map((s) => s.name)).toEqual(['a', 'b']);
      expect(new Set(await repo2.ids())).toEqual(new Set([a.id, b.id]));
      for (let i = 0; i < runHistoryLimit + 5; i++) {
        await r2.lpush(keys.scheduleRuns(a.id), JSON.stringify({ n: i }));
      }
      const runs = await repo2.runs(a.id);
      expect(runs).toHaveLength(runHistoryLimit);
      expect(runs[0]).toEqual({ n: runHistoryLimit + 4 });
      expect(seen).toHaveLength(runHistoryLimit);
    } finally {
      await dropPrefix(p2);
      r2.disconnect();
    }
  });

  it('withLock runs the sections of one schedule one at a time', async () => {
    let inside = 0;
    let most = 0;
    const section = async () => {
      inside++;
      most = Math.max(most, inside);
      await new Promise((r) => setTimeout(r, 20));
      inside--;
    };
    await Promise.all([repo.withLock('one', section), repo.withLock('one', section)]);
    expect(most).toBe(1);
  });
});
