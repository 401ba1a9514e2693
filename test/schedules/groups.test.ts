import { afterEach, describe, expect, it } from 'vitest';
import type { RunScript } from '../../src/schedules/run-executor.js';
import { groupKeyOf, tickSchedulerId } from '../../src/schedules/tick-groups.js';
import { keys } from '../../src/store/keys.js';
import { scheduleHarness, waitFor, type ScheduleHarness } from './harness.js';
import { tickState } from './ticks.js';

const okScript: RunScript = async ({ name }) => ({
  success: true,
  result: name,
  duration_ms: 1,
  logs: [],
});

/** Fire times of a schedule's history, each with how many runs it has. */
async function perFire(h: ScheduleHarness, id: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const r of await h.schedules.store.runs(id)) {
    const at = r.scheduled_at ?? 'manual';
    counts.set(at, (counts.get(at) ?? 0) + 1);
  }
  return counts;
}

describe('tick groups (one job scheduler per cron pattern and zone)', () => {
  let h: ScheduleHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const every = (name: string, cron = '*/1 * * * * *', extra: object = {}) =>
    h!.schedules.service.create({
      name,
      cron_expr: cron,
      type: 'script',
      script_name: `${name}.star`,
      ...extra,
    });

  it('two schedules sharing a pattern share one scheduler and fire once each per tick', async () => {
    h = await scheduleHarness({}, { runScript: okScript });
    await h.startWorkers();
    const a = await every('a');
    const b = await every('b');
    const tick = await tickState(h.t.ctx, a.id, '*/1 * * * * *');
    expect(tick.size).toBe(2);
    const schedulers = await h.t.ctx.queues.queue('scheduleRuns').getJobSchedulers(0, -1);
    expect(schedulers.map((js) => js.key)).toEqual([tickSchedulerId(tick.group)]);
    await waitFor(async () => (await h!.schedules.store.runs(b.id)).length >= 3, 15_000, 'runs');
    await h.schedules.service.setEnabled(a.id, false);
    await h.schedules.service.setEnabled(b.id, false);
    const fa = await perFire(h, a.id);
    const fb = await perFire(h, b.id);
    expect([...fa.values(), ...fb.values()].every((n) => n === 1)).toBe(true);
    // Fired by the same ticks: the same fire times (give or take the one in flight at disable).
    const shared = [...fa.keys()].filter((k) => fb.has(k));
    expect(shared.length).toBeGreaterThanOrEqual(2);
    for (const r of await h.schedules.store.runs(a.id)) expect(r.output).toBe('a.star');
  });

  it("changing one's cron moves it to another group; the last member leaving removes the tick", async () => {
    h = await scheduleHarness({}, { runScript: okScript });
    const a = await every('a', '0 3 * * *');
    const b = await every('b', '0 3 * * *');
    await h.schedules.service.update(a.id, { cron_expr: '0 4 * * *' });
    const old = await tickState(h.t.ctx, b.id, '0 3 * * *');
    const moved = await tickState(h.t.ctx, a.id, '0 4 * * *');
    expect(old).toMatchObject({ member: true, size: 1, scheduler: { pattern: '0 3 * * *' } });
    expect((await tickState(h.t.ctx, a.id, '0 3 * * *')).member).toBe(false);
    expect(moved).toMatchObject({ member: true, size: 1, scheduler: { pattern: '0 4 * * *' } });
    // Same pattern, other zone: another group.
    await h.schedules.service.update(a.id, { cron_expr: '0 3 * * *', timezone: 'Asia/Tokyo' });
    const tokyo = await tickState(h.t.ctx, a.id, '0 3 * * *', 'Asia/Tokyo');
    expect(tokyo).toMatchObject({ member: true, scheduler: { tz: 'Asia/Tokyo' } });
    expect((await tickState(h.t.ctx, a.id, '0 4 * * *')).scheduler).toBeUndefined();
    await h.schedules.service.remove(b.id);
    expect(await tickState(h.t.ctx, b.id, '0 3 * * *')).toMatchObject({
      member: false,
      size: 0,
      scheduler: undefined,
    });
    await h.schedules.service.setEnabled(a.id, false);
    expect(await h.t.ctx.queues.queue('scheduleRuns').getJobSchedulers(0, -1)).toEqual([]);
    expect(await h.t.ctx.redis.hlen(keys.scheduleGroupOf())).toBe(0);
    expect(await h.t.ctx.redis.hlen(keys.scheduleGroupSpecs())).toBe(0);
  });

  it('reconcile rebuilds groups and drops per-schedule schedulers of the earlier design', async () => {
    h = await scheduleHarness({}, { runScript: okScript });
    const a = await every('a', '0 3 * * *');
    const group = groupKeyOf('0 3 * * *', 'UTC');
    const queue = h.t.ctx.queues.queue('scheduleRuns');
    // Lost membership and tick, plus a leftover scheduler keyed by the schedule id.
    await h.t.ctx.redis.del(keys.scheduleGroup(group), keys.scheduleGroupOf());
    await queue.removeJobScheduler(tickSchedulerId(group));
    await queue.upsertJobScheduler(a.id, { pattern: '0 3 * * *' }, { name: 'schedule-runs' });
    // A member whose schedule row is gone.
    await h.t.ctx.redis.sadd(keys.scheduleGroup(group), 'ghost');
    await h.t.ctx.redis.hset(keys.scheduleGroupOf(), 'ghost', group);
    const report = await h.schedules.sync.reconcile();
    expect(report).toMatchObject({ upserted: 1, removed: 1 });
    expect(await tickState(h.t.ctx, a.id, '0 3 * * *')).toMatchObject({
      member: true,
      size: 1,
      scheduler: { pattern: '0 3 * * *' },
    });
    expect((await queue.getJobSchedulers(0, -1)).map((js) => js.key)).toEqual([
      tickSchedulerId(group),
    ]);
    expect(await h.schedules.sync.reconcile()).toMatchObject({ upserted: 0, removed: 0 });
  });

  it('a burst of creates with a new pattern makes one scheduler without queueing on its lock', async () => {
    h = await scheduleHarness({}, { runScript: okScript });
    const made = await Promise.all(
      Array.from({ length: 300 }, (_, i) => every(`b${i}`, '0 5 * * *')),
    );
    const tick = await tickState(h.t.ctx, made[0]!.id, '0 5 * * *');
    expect(tick.size).toBe(300);
    expect(tick.scheduler).toMatchObject({ pattern: '0 5 * * *' });
    const schedulers = await h.t.ctx.queues.queue('scheduleRuns').getJobSchedulers(0, -1);
    expect(schedulers.map((js) => js.key)).toEqual([tickSchedulerId(tick.group)]);
  });

  it('a tick runs only the members still in its group, and a repeated tick runs nothing', async () => {
    h = await scheduleHarness({}, { runScript: okScript });
    const a = await every('a', '0 3 * * *');
    const b = await every('b', '0 3 * * *');
    const spec = { group: groupKeyOf('0 3 * * *', 'UTC'), pattern: '0 3 * * *', tz: 'UTC' };
    const fire = Math.floor(Date.now() / 1000) * 1000;
    // b moved away after the tick listed it: its row no longer matches the tick.
    await h.t.ctx.redis.hset(keys.schedule(b.id), 'cron_expr', '0 4 * * *');
    const { executor } = h.schedules;
    const tick = { ...spec, pending: keys.scheduleTickPending(spec.group, fire) };
    await h.t.ctx.redis.sadd(tick.pending, a.id, b.id, 'ghost');
    const taken = await executor.takeBatch(tick, fire, 8);
    expect(taken).toMatchObject({ remaining: 0 });
    expect(taken.started).toHaveLength(1);
    await Promise.all(taken.started);
    // The firing is claimed already: the second tick only looks at the claim.
    await h.t.ctx.redis.sadd(tick.pending, a.id);
    await Promise.all((await executor.takeBatch(tick, fire, 8)).started);
    expect(await perFire(h, a.id)).toEqual(new Map([[new Date(fire).toISOString(), 1]]));
    expect(await h.schedules.store.runs(b.id)).toEqual([]);
  });

  it('two workers split a large tick between them, each schedule running once', async () => {
    // Few run slots per process: the tick is announced and both processes take batches.
    h = await scheduleHarness({ 'schedules.concurrency': 4 }, { runScript: okScript });
    await h.startWorkers();
    await h.startWorkers();
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push((await every(`s${i}`, '*/2 * * * * *')).id);
    expect((await tickState(h.t.ctx, ids[0] as string, '*/2 * * * * *')).size).toBe(40);
    await waitFor(
      async () => {
        const heads = await Promise.all(ids.map((id) => h!.schedules.store.runs(id)));
        return heads.every((r) => r.length >= 2);
      },
      20_000,
      'two firings of every schedule',
    );
    for (const id of ids) await h.schedules.service.setEnabled(id, false);
    const all = await Promise.all(ids.map((id) => perFire(h!, id)));
    expect(all.every((m) => [...m.values()].every((n) => n === 1))).toBe(true);
    for (const id of ids) {
      const runs = await h.schedules.store.runs(id);
      expect(runs.every((r) => r.status === 'success')).toBe(true);
    }
    expect(await h.t.ctx.redis.zcard(keys.scheduleRunning())).toBe(0);
  }, 60_000);
});
