import { afterEach, describe, expect, it } from 'vitest';
import type { RunScript } from '../../src/schedules/run-executor.js';
import { keys } from '../../src/store/keys.js';
import { scheduleHarness, waitFor, type ScheduleHarness } from './harness.js';

const okScript: RunScript = async () => ({
  success: true,
  result: 'done',
  duration_ms: 1,
  logs: [],
});
const minute = 60_000;
/** A daily UTC cron that fired exactly at `t` (whole minute). */
const dailyAt = (t: number) => {
  const d = new Date(t);
  return `${d.getUTCMinutes()} ${d.getUTCHours()} * * *`;
};

describe('misfires (firings missed while no worker ran)', () => {
  let h: ScheduleHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** A schedule that looks as if it was armed at `armedAt` and nothing ran since. */
  async function missed(cron: string, armedAt: number) {
    const s = await h!.schedules.service.create({
      name: 'm',
      cron_expr: cron,
      type: 'script',
      script_name: 'm.star',
    });
    await h!.t.ctx.redis.hset(keys.schedule(s.id), 'armed_at', String(armedAt));
    return s;
  }

  it('runs the missed firing once on recovery when it is within the window', async () => {
    h = await scheduleHarness({ 'schedules.misfire_window': '5m' }, { runScript: okScript });
    const fire = Math.floor((Date.now() - 2 * minute) / minute) * minute;
    const s = await missed(dailyAt(fire), fire - minute);
    await h.startWorkers();
    const runs = await waitFor(async () => {
      const r = await h!.schedules.store.runs(s.id);
      return r.length > 0 ? r : null;
    });
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      status: 'success',
      scheduled_at: new Date(fire).toISOString(),
    });
    // A second worker starting (another reconcile) does not run it again.
    await h.startWorkers();
    await new Promise((r) => setTimeout(r, 300));
    expect(await h.schedules.store.runs(s.id)).toHaveLength(1);
  });

  it('skips a firing older than the window and records it in history only', async () => {
    h = await scheduleHarness({ 'schedules.misfire_window': '5m' }, { runScript: okScript });
    const fire = Math.floor((Date.now() - 10 * minute) / minute) * minute;
    const s = await missed(dailyAt(fire), fire - minute);
    const report = await h.schedules.sync.reconcile();
    expect(report).toMatchObject({ caughtUp: 0, skipped: 1 });
    const runs = await h.schedules.store.runs(s.id);
    expect(runs).toEqual([
      expect.objectContaining({
        status: 'skipped',
        scheduled_at: new Date(fire).toISOString(),
        started_at: null,
        error: expect.stringMatching(/missed while no worker was running/),
      }),
    ]);
    const got = await h.schedules.service.get(s.id);
    expect(got.last_run_status).toBeUndefined();
    // Idempotent across replicas.
    expect(await h.schedules.sync.reconcile()).toMatchObject({ caughtUp: 0, skipped: 0 });
    expect(await h.schedules.store.runs(s.id)).toHaveLength(1);
  });

  it('with several missed firings runs only the newest and records the older ones as skipped', async () => {
    h = await scheduleHarness({ 'schedules.misfire_window': '5m' }, { runScript: okScript });
    // Stay clear of a minute boundary, which would add a firing mid-test.
    if (Date.now() % minute > 50_000)
      await new Promise((r) => setTimeout(r, minute - (Date.now() % minute) + 50));
    const newest = Math.floor(Date.now() / minute) * minute;
    const s = await missed('* * * * *', newest - 3.5 * minute);
    await h.startWorkers();
    const success = await waitFor(async () => {
      const r = await h!.schedules.store.runs(s.id);
      return r.find(
        (e) => e.status === 'success' && e.scheduled_at === new Date(newest).toISOString(),
      );
    });
    expect(success).toBeDefined();
    const upToNewest = (await h.schedules.store.runs(s.id)).filter(
      (e) => Date.parse(e.scheduled_at ?? '') <= newest,
    );
    expect(upToNewest.filter((e) => e.status === 'success')).toHaveLength(1);
    const skipped = upToNewest.filter((e) => e.status === 'skipped');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]?.scheduled_at).toBe(new Date(newest - minute).toISOString());
    expect(skipped[0]?.error).toMatch(/^3 firing\(s\)/);
  });

  it('a job picked up after the window (queue backlog) is recorded as skipped, once', async () => {
    h = await scheduleHarness({ 'schedules.misfire_window': '1m' }, { runScript: okScript });
    const s = await h.schedules.service.create({
      name: 'late',
      cron_expr: '0 8 * * *',
      type: 'script',
      script_name: 'l.star',
    });
    const fire = Date.now() - 2 * minute;
    await h.schedules.executor.execute({ scheduleId: s.id, fireTime: fire, jobId: 'a' });
    await h.schedules.executor.execute({ scheduleId: s.id, fireTime: fire, jobId: 'b' });
    const runs = await h.schedules.store.runs(s.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      status: 'skipped',
      error: expect.stringMatching(/outside the misfire window/),
    });
  });
});
