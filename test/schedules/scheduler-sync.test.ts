import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ScheduleConfig } from '../../src/schedules/schedule-schema.js';
import type { ScheduleValues } from '../../src/schedules/schedule-records.js';
import { runEntrySchema } from '../../src/schedules/schedule-schema.js';
import {
  createSchedulerSync,
  scheduleJobOptions,
  type SchedulerSync,
} from '../../src/schedules/scheduler-sync.js';
import { groupKeyOf, tickSchedulerId } from '../../src/schedules/tick-groups.js';
import { keys } from '../../src/store/keys.js';
import { createScheduleRepository } from '../../src/store/schedule-repository.js';
import { createScheduleRunRepository } from '../../src/store/schedule-run-repository.js';
import { createTickRepository } from '../../src/store/tick-repository.js';
import { createTestContext, type TestContext } from '../support/app.js';

const minute = 60_000;
const hour = 60 * minute;

describe('scheduler sync', () => {
  let t: TestContext;
  let sync: SchedulerSync;
  let store: ReturnType<typeof createScheduleRepository<ScheduleValues>>;
  const queue = () => t.ctx.queues.queue('scheduleRuns');

  // Each test gets its own deployment (prefix): no schedules, no job schedulers.
  beforeEach(async () => {
    t = await createTestContext({}, 'schedsync');
    store = createScheduleRepository<ScheduleValues>(t.ctx.redis, {
      parseEntry: (raw) => runEntrySchema.parse(raw),
    });
    sync = createSchedulerSync({
      ticks: createTickRepository(t.ctx.redis),
      queue: queue(),
      store,
      runState: createScheduleRunRepository<ScheduleValues>(t.ctx.redis, {
        leaseMs: 5_000,
        claimRetentionMs: 2 * hour,
      }),
      misfireWindowMs: 30 * minute,
      graceMs: 5_000,
    });
  });
  afterEach(() => t.close());

  const create = async (cron: string, armedAt: number, extra: Partial<ScheduleConfig> = {}) => {
    const s = await store.create({
      name: 'n',
      cron_expr: cron,
      type: 'script',
      enabled: true,
      script_name: 's.star',
      run_once: false,
      timezone: 'UTC',
      ...extra,
    });
    await t.ctx.redis.hset(keys.schedule(s.id), 'armed_at', String(armedAt));
    return s;
  };

  it('keeps schedule-run jobs as bookkeeping only: one attempt, few kept', () => {
    expect(scheduleJobOptions.attempts).toBe(1);
  });

  it('reconcile creates the tick schedulers the store wants and removes every orphan', async () => {
    const now = Date.now();
    const s = await create('0 5 * * *', now);
    await create('0 6 * * *', now, { enabled: false });
    // An orphan tick, a per-schedule scheduler of the earlier design, and a member with no row.
    await queue().upsertJobScheduler(tickSchedulerId('orphan'), { pattern: '0 7 * * *' });
    await queue().upsertJobScheduler('legacy-schedule', { pattern: '0 7 * * *' });
    await t.ctx.redis.sadd(keys.scheduleGroup('ghostgroup'), 'ghost');
    await t.ctx.redis.hset(keys.scheduleGroupOf(), 'ghost', 'ghostgroup');

    const report = await sync.reconcile(now);
    expect(report).toEqual({ upserted: 1, removed: 2, caughtUp: 0, skipped: 0 });
    const left = (await queue().getJobSchedulers(0, -1)).map((js) => js.key);
    expect(left).toEqual([tickSchedulerId(groupKeyOf('0 5 * * *', 'UTC'))]);
    expect(Object.keys(await t.ctx.redis.hgetall(keys.scheduleGroupOf()))).toEqual([s.id]);
    // A second reconcile finds nothing to do.
    expect(await sync.reconcile(now)).toEqual({ upserted: 0, removed: 0, caughtUp: 0, skipped: 0 });
  });

  it('runs the newest missed firing within the window and records the older ones as skipped', async () => {
    const fire = Math.floor(Date.now() / hour) * hour - hour;
    const now = fire + 10 * minute;
    const s = await create('0 * * * *', fire - 4 * hour - minute);
    const report = await sync.reconcile(now);
    expect(report).toMatchObject({ caughtUp: 1, skipped: 4 });
    const job = await queue().getJob(`catchup-${s.id}-${fire}`);
    expect(job?.data).toEqual({ scheduleId: s.id, fireTime: fire });
    const runs = await store.runs(s.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      status: 'skipped',
      started_at: null,
      scheduled_at: new Date(fire - hour).toISOString(),
      finished_at: new Date(now).toISOString(),
    });
    expect(runs[0]?.error).toMatch(
      `4 firing(s) from ${new Date(fire - 4 * hour).toISOString()} to ${new Date(fire - hour).toISOString()} were missed`,
    );
    // Recorded once: another replica reconciling later skips nothing again.
    expect((await sync.reconcile(now)).skipped).toBe(0);
    expect(await store.runs(s.id)).toHaveLength(1);
  });

  it('records a newest missed firing outside the window as skipped and does not run it', async () => {
    const fire = Math.floor(Date.now() / minute) * minute - 2 * hour;
    const d = new Date(fire);
    const s = await create(`${d.getUTCMinutes()} ${d.getUTCHours()} * * *`, fire - minute);
    const report = await sync.reconcile(fire + hour);
    expect(report).toMatchObject({ caughtUp: 0, skipped: 1 });
    expect(await queue().getJob(`catchup-${s.id}-${fire}`)).toBeFalsy();
    expect((await store.runs(s.id))[0]).toMatchObject({
      status: 'skipped',
      scheduled_at: new Date(fire).toISOString(),
    });
    expect((await store.get(s.id))?.last_run_status).toBeUndefined();
  });

  it('does not count firings younger than the grace as missed (a live worker may take them)', async () => {
    const now = Math.floor(Date.now() / 1000) * 1000;
    const s = await create('* * * * * *', now - 10_000);
    // Ten firings in (armed, now]: the newest runs, those within 5 s are left alone.
    expect(await sync.reconcile(now)).toMatchObject({ caughtUp: 1, skipped: 4 });
    expect((await store.runs(s.id))[0]?.scheduled_at).toBe(new Date(now - 6_000).toISOString());
  });

  it('leaves disabled schedules alone', async () => {
    const fire = Math.floor(Date.now() / hour) * hour - hour;
    const s = await create('0 * * * *', fire - 3 * hour, { enabled: false });
    expect(await sync.reconcile(fire + minute)).toMatchObject({ caughtUp: 0, skipped: 0 });
    expect(await store.runs(s.id)).toEqual([]);
  });

  it('syncOne places a schedule from its stored state', async () => {
    const s = await create('0 8 * * *', Date.now());
    expect(await sync.syncOne(s.id)).toBe('upserted');
    await store.patch(s.id, { enabled: false }, false);
    expect(await sync.syncOne(s.id)).toBe('removed');
    expect(await queue().getJobSchedulers(0, -1)).toEqual([]);
  });
});
