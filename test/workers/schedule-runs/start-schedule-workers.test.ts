import type { Job } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryMessage } from '../../../src/schedules/delivery/provider.js';
import type { RunScript } from '../../../src/schedules/run-executor.js';
import { groupKeyOf, tickSchedulerId } from '../../../src/schedules/tick-groups.js';
import { keys } from '../../../src/store/keys.js';
import { inFlightRun } from '../../../src/store/schedule-run-member.js';
import { fireTimeOf } from '../../../src/workers/schedule-runs/start-schedule-workers.js';
import { scheduleHarness, waitFor, type ScheduleHarness } from '../../schedules/harness.js';

const okScript: RunScript = async ({ name }) => ({
  success: true,
  result: name,
  duration_ms: 1,
  logs: [],
});

type JobLike = Pick<Job, 'id' | 'opts' | 'repeatJobKey'>;
const job = (j: { id?: string; prevMillis?: number; repeatJobKey?: string }): JobLike =>
  ({
    id: j.id,
    opts: j.prevMillis === undefined ? {} : { prevMillis: j.prevMillis },
    repeatJobKey: j.repeatJobKey,
  }) as JobLike;

describe('fireTimeOf', () => {
  it("takes a catch-up job's fire time from its data", () => {
    expect(fireTimeOf(job({ id: 'catchup-x-5000' }), 5000)).toBe(5000);
  });

  it("takes a scheduler job's fire time from prevMillis, else from the tail of its id", () => {
    expect(
      fireTimeOf(job({ id: 'repeat:tick:g:9000', repeatJobKey: 'tick:g', prevMillis: 8000 }), null),
    ).toBe(8000);
    expect(fireTimeOf(job({ id: 'repeat:tick:g:9000', repeatJobKey: 'tick:g' }), null)).toBe(9000);
    expect(fireTimeOf(job({ id: 'repeat:tick:g:soon', repeatJobKey: 'tick:g' }), null)).toBeNull();
  });

  it('gives a manual job (no scheduler, no data) no fire time', () => {
    expect(fireTimeOf(job({ id: 'manual-abc', prevMillis: 7000 }), null)).toBeNull();
  });
});

describe('startScheduleWorkers', () => {
  let h: ScheduleHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('reconciles the tick schedulers and ends runs left by a dead worker before taking jobs', async () => {
    h = await scheduleHarness({}, { runScript: okScript });
    const s = await h.schedules.service.create({
      name: 'r',
      cron_expr: '0 8 * * *',
      type: 'script',
      script_name: 'r.star',
    });
    const queue = h.t.ctx.queues.queue('scheduleRuns');
    await queue.removeJobScheduler(tickSchedulerId(groupKeyOf('0 8 * * *', 'UTC')));
    const dead = inFlightRun({
      scheduleId: s.id,
      runId: 'dead',
      fireTime: null,
      startedAt: new Date().toISOString(),
    });
    await h.schedules.runState.claim(dead, 'manual-dead');
    await h.t.ctx.redis.zadd(keys.scheduleRunning(), Date.now() - 1, dead.member);

    await h.startWorkers();
    expect(
      await queue.getJobScheduler(tickSchedulerId(groupKeyOf('0 8 * * *', 'UTC'))),
    ).toBeTruthy();
    expect((await h.schedules.store.runs(s.id))[0]).toMatchObject({ id: 'dead', status: 'error' });
  });

  it('runs manual jobs and delivers their output through the deliveries worker', async () => {
    const sent: DeliveryMessage[] = [];
    h = await scheduleHarness(
      {},
      {
        runScript: okScript,
        providers: { telegram: { deliver: async (_c, m) => void sent.push(m) } },
      },
    );
    await h.startWorkers();
    const s = await h.schedules.service.create({
      name: 'm',
      cron_expr: '0 8 * * *',
      type: 'script',
      script_name: 'm.star',
      enabled: false,
      output_target: { provider: 'telegram', channel_id: '-100123' },
    });
    await h.schedules.service.trigger(s.id);
    const [run] = await waitFor(async () => {
      const r = await h!.schedules.store.runs(s.id);
      return r[0]?.delivery?.status === 'delivered' ? r : null;
    });
    expect(run).toMatchObject({ status: 'success', output: 'm.star', scheduled_at: null });
    expect(sent).toEqual([expect.objectContaining({ scheduleName: 'm', output: 'm.star' })]);
  });

  it('close stops taking jobs', async () => {
    h = await scheduleHarness({}, { runScript: okScript });
    const w = await h.startWorkers();
    await w.close();
    const s = await h.schedules.service.create({
      name: 'c',
      cron_expr: '0 8 * * *',
      type: 'script',
      script_name: 'c.star',
    });
    await h.schedules.service.trigger(s.id);
    await new Promise((r) => setTimeout(r, 300));
    expect(await h.schedules.store.runs(s.id)).toEqual([]);
    expect(await h.t.ctx.queues.queue('scheduleRuns').getJobCounts('waiting')).toEqual({
      waiting: 1,
    });
  });
});
