import { afterAll, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { createScheduleRepository } from '../../src/store/schedule-repository.js';
import {
  createFinishBatcher,
  finishMany,
  takeMany,
  type FinishItem,
} from '../../src/store/schedule-run-batches.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

const item = (n: number, size = 1): FinishItem => ({
  keys: [`h${n}`, `l${n}`],
  args: [`m${n}`, 'e'.repeat(size), 'at', 'success', '', '', ''],
});

describe('finish batcher', () => {
  it('sends the finishes of one event-loop turn in one call, each caller getting its result', async () => {
    const calls: FinishItem[][] = [];
    const finish = createFinishBatcher(async (items) => {
      calls.push(items);
      return items.map((i) => `ok:${i.args[0]}`);
    });
    const results = await Promise.all([finish(item(1)), finish(item(2)), finish(item(3))]);
    expect(results).toEqual(['ok:m1', 'ok:m2', 'ok:m3']);
    expect(calls.map((c) => c.length)).toEqual([3]);
    // A later turn starts a new batch.
    expect(await finish(item(4))).toBe('ok:m4');
    expect(calls).toHaveLength(2);
  });

  it('caps a batch at 64 runs and at about 1 MiB of arguments', async () => {
    const sizes: number[] = [];
    const finish = createFinishBatcher(async (items) => {
      sizes.push(items.length);
      return items.map(() => 'ok');
    });
    await Promise.all(Array.from({ length: 130 }, (_, i) => finish(item(i))));
    expect(sizes).toEqual([64, 64, 2]);
    sizes.length = 0;
    await Promise.all(Array.from({ length: 5 }, (_, i) => finish(item(i, 400 * 1024))));
    expect(sizes).toEqual([3, 2]);
  });

  it('answers "finished" when the script returned no result for a run', async () => {
    const finish = createFinishBatcher(async () => []);
    expect(await finish(item(1))).toBe('finished');
  });

  it('rejects every caller of a batch whose call failed', async () => {
    const finish = createFinishBatcher(async () => {
      throw new Error('redis down');
    });
    const outcomes = await Promise.allSettled([finish(item(1)), finish(item(2))]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
  });
});

describe('takeMany and finishMany on Redis', () => {
  const prefix = uniquePrefix('batches');
  const redis = storeRedis(prefix);
  const schedules = createScheduleRepository(redis, { parseEntry: (raw) => raw as object });
  const opts = { leaseMs: 30_000, claimRetentionMs: 60_000 };
  afterAll(async () => {
    await dropPrefix(prefix);
    redis.disconnect();
  });

  const create = (extra: object = {}) =>
    schedules.create({
      name: 'brief',
      cron_expr: '0 8 * * *',
      type: 'agent',
      enabled: true,
      prompt: 'Brief me',
      run_once: false,
      timezone: 'Europe/Paris',
      ...extra,
    });

  it('claims under the deployment prefix with the member text the caller rebuilds', async () => {
    const s = await create();
    const fire = 1_700_000_000_000;
    await redis.sadd(keys.scheduleTickPending('g', fire), s.id);
    const before = Date.now();
    const tick = { group: 'g', pattern: '0 8 * * *', tz: 'Europe/Paris' };
    const taken = await takeMany(redis, opts, tick, fire, 'T0', ['run-1'], true);
    expect(taken).toEqual({
      remaining: 0,
      rows: [
        {
          id: s.id,
          result: 'claimed',
          run: {
            scheduleId: s.id,
            runId: 'run-1',
            fireTime: fire,
            startedAt: 'T0',
            member: `run-1 ${s.id} ${fire} T0`,
          },
          schedule: { id: s.id, name: 'brief', type: 'agent', prompt: 'Brief me' },
        },
      ],
    });
    const member = `run-1 ${s.id} ${fire} T0`;
    expect(await redis.get(keys.scheduleFired(s.id, fire))).toBe(member);
    const pttl = await redis.pttl(keys.scheduleFired(s.id, fire));
    expect(pttl).toBeGreaterThan(50_000);
    expect(pttl).toBeLessThanOrEqual(60_000);
    const deadline = Number(await redis.zscore(keys.scheduleRunning(), member));
    expect(deadline).toBeGreaterThanOrEqual(before + opts.leaseMs);
    expect(await schedules.get(s.id)).toMatchObject({
      last_run_status: 'running',
      last_fire_at: fire,
    });
  });

  it('treats a schedule whose zone changed since the tick listed it as moved', async () => {
    const s = await create({ timezone: 'UTC' });
    await redis.sadd(keys.scheduleTickPending('g2', 5000), s.id);
    const tick = { group: 'g2', pattern: '0 8 * * *', tz: 'Europe/Paris' };
    const taken = await takeMany(redis, opts, tick, 5000, 'T0', ['r'], true);
    expect(taken.rows.map((r) => r.result)).toEqual(['moved']);
    expect(await redis.exists(keys.scheduleFired(s.id, 5000))).toBe(0);
  });

  it('takes no more than one schedule per run id given', async () => {
    const ids = await Promise.all([create(), create(), create()]);
    await redis.sadd(keys.scheduleTickPending('g3', 7000), ...ids.map((s) => s.id));
    const tick = { group: 'g3', pattern: '0 8 * * *', tz: 'Europe/Paris' };
    const taken = await takeMany(redis, opts, tick, 7000, 'T0', ['a', 'b'], true);
    expect(taken.rows).toHaveLength(2);
    expect(taken.remaining).toBe(1);
  });

  it('finishMany ends each run once, answering per run', async () => {
    const s = await create({ run_once: true });
    const fire = 8000;
    await redis.sadd(keys.scheduleTickPending('g4', fire), s.id);
    const tick = { group: 'g4', pattern: '0 8 * * *', tz: 'Europe/Paris' };
    const { rows } = await takeMany(redis, opts, tick, fire, 'T0', ['r1'], true);
    const member = rows[0]?.run.member ?? '';
    const entry = JSON.stringify({ id: 'r1', status: 'success' });
    const finish: FinishItem = {
      keys: [keys.schedule(s.id), keys.scheduleRuns(s.id)],
      args: [member, entry, 'T1', 'success', '', 'out', ''],
    };
    const ghost: FinishItem = {
      keys: [keys.schedule('ghost'), keys.scheduleRuns('ghost')],
      args: ['x ghost 1 T0', entry, 'T1', 'success', '', '', '{"to":"ghost"}'],
    };
    expect(await finishMany(redis, 50, [finish, ghost])).toEqual(['run_once', 'finished']);
    expect(await finishMany(redis, 50, [finish])).toEqual(['finished']);
    expect(await schedules.get(s.id)).toMatchObject({
      enabled: false,
      last_run_status: 'success',
      last_run_output: 'out',
    });
    expect(await redis.zscore(keys.scheduleRunning(), member)).toBeNull();
    // Neither run had a delivery to record: the finisher's had none, the ghost never finished.
    expect(await redis.zcard(keys.scheduleDeliveriesPending())).toBe(0);
  });
});
