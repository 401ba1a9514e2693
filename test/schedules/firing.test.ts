import { afterEach, describe, expect, it } from 'vitest';
import type { RunScript } from '../../src/schedules/run-executor.js';
import { keys } from '../../src/store/keys.js';
import { inFlightRun } from '../../src/store/schedule-run-member.js';
import { scheduleHarness, waitFor, type ScheduleHarness } from './harness.js';
import { tickState } from './ticks.js';

const okScript: RunScript = async ({ name }) => ({
  success: true,
  result: { name },
  duration_ms: 1,
  logs: [],
});

describe('cron firing in process', () => {
  let h: ScheduleHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('fires a 6-field every-second cron; each run is keyed by its whole-second fire time', async () => {
    h = await scheduleHarness({}, { runScript: okScript });
    await h.startWorkers();
    const s = await h.schedules.service.create({
      name: 'tick',
      cron_expr: '*/1 * * * * *',
      type: 'script',
      script_name: 'tick.star',
    });
    const runs = await waitFor(async () => {
      const r = await h!.schedules.store.runs(s.id);
      return r.length >= 3 ? r : null;
    }, 10_000);
    const fires = runs.map((r) => Date.parse(r.scheduled_at ?? ''));
    for (const f of fires) expect(f % 1000).toBe(0);
    expect(new Set(fires).size).toBe(fires.length);
    for (const r of runs) {
      expect(r.status).toBe('success');
      expect(Date.parse(r.started_at ?? '') - Date.parse(r.scheduled_at ?? '')).toBeLessThan(2000);
    }
    const got = await h.schedules.service.get(s.id);
    expect(got.last_run_output).toBe('{\n  "name": "tick.star"\n}');
    expect(got.last_run_at).toBeDefined();
  });

  it('two workers on one prefix run each firing once', async () => {
    h = await scheduleHarness({}, { runScript: okScript });
    await h.startWorkers();
    await h.startWorkers();
    const s = await h.schedules.service.create({
      name: 'twice',
      cron_expr: '*/1 * * * * *',
      type: 'script',
      script_name: 't.star',
    });
    const runs = await waitFor(async () => {
      const r = await h!.schedules.store.runs(s.id);
      return r.length >= 3 ? r : null;
    });
    await h.schedules.service.setEnabled(s.id, false);
    const all = await h.schedules.store.runs(s.id);
    const fires = all.map((r) => r.scheduled_at);
    expect(new Set(fires).size).toBe(fires.length);
    expect(runs.length).toBeGreaterThanOrEqual(3);
  });

  it('run_once fired by cron runs once and disables itself', async () => {
    h = await scheduleHarness({}, { runScript: okScript });
    await h.startWorkers();
    const s = await h.schedules.service.create({
      name: 'once',
      cron_expr: '*/1 * * * * *',
      type: 'script',
      script_name: 'o.star',
      run_once: true,
    });
    await waitFor(async () => !(await h!.schedules.store.get(s.id))?.enabled, 10_000, 'disabled');
    // Its group's only member: the tick scheduler goes with it.
    await waitFor(async () => {
      const tick = await tickState(h!.t.ctx, s.id, '*/1 * * * * *');
      return !tick.member && tick.scheduler === undefined;
    });
    await new Promise((r) => setTimeout(r, 1500));
    expect(await h.schedules.store.runs(s.id)).toHaveLength(1);
  });

  it('agent schedules call runAgent with the configured timeout and a schedule title', async () => {
    const seen: Array<[string, number, string]> = [];
    h = await scheduleHarness(
      { 'schedules.agent_timeout': '45s' },
      {
        runAgent: async (prompt, timeoutMs, title) => {
          seen.push([prompt, timeoutMs, title]);
          return `reply to ${prompt}`;
        },
      },
    );
    await h.startWorkers();
    const s = await h.schedules.service.create({
      name: 'brief',
      cron_expr: '0 8 * * *',
      type: 'agent',
      prompt: 'morning brief',
      enabled: false,
    });
    await h.schedules.service.trigger(s.id);
    const got = await waitFor(async () => {
      const r = await h!.schedules.service.get(s.id);
      return r.last_run_status === 'success' ? r : null;
    });
    expect(got.last_run_output).toBe('reply to morning brief');
    expect(seen).toEqual([['morning brief', 45_000, 'schedule:brief']]);
  });

  it('an agent failure ends the run as error with the message', async () => {
    h = await scheduleHarness(
      {},
      {
        runAgent: async () => {
          throw new Error('engine timed out after 45000 ms');
        },
      },
    );
    await h.startWorkers();
    const s = await h.schedules.service.create({
      name: 'b',
      cron_expr: '0 8 * * *',
      type: 'agent',
      prompt: 'x',
      enabled: false,
    });
    await h.schedules.service.trigger(s.id);
    const got = await waitFor(async () => {
      const r = await h!.schedules.service.get(s.id);
      return r.last_run_status === 'error' ? r : null;
    });
    expect(got.last_run_error).toBe('engine timed out after 45000 ms');
  });

  it('redacts output and error, and caps output at 64 KiB', async () => {
    h = await scheduleHarness(
      {},
      {
        redact: (t) => t.replaceAll('hunter22hunter22', '[REDACTED:PASS]'),
        runScript: async ({ name }) =>
          name === 'big.star'
            ? { success: true, result: 'x'.repeat(200_000), duration_ms: 1, logs: [] }
            : {
                success: false,
                error: 'bad token hunter22hunter22',
                duration_ms: 1,
                logs: ['saw hunter22hunter22'],
              },
      },
    );
    await h.startWorkers();
    const mk = (script_name: string) =>
      h!.schedules.service.create({
        name: script_name,
        cron_expr: '0 8 * * *',
        type: 'script',
        script_name,
        enabled: false,
      });
    const big = await mk('big.star');
    const leak = await mk('leak.star');
    await h.schedules.service.trigger(big.id);
    await h.schedules.service.trigger(leak.id);
    const b = await waitFor(async () => {
      const r = await h!.schedules.service.get(big.id);
      return r.last_run_status === 'success' ? r : null;
    });
    expect(Buffer.byteLength(b.last_run_output ?? '')).toBeLessThanOrEqual(64 * 1024);
    expect(b.last_run_output).toMatch(/truncated/);
    const l = await waitFor(async () => {
      const r = await h!.schedules.service.get(leak.id);
      return r.last_run_status === 'error' ? r : null;
    });
    expect(l.last_run_error).toBe('bad token [REDACTED:PASS]');
    expect(l.last_run_output).toBe('saw [REDACTED:PASS]');
    const [entry] = await h.schedules.store.runs(leak.id);
    expect(JSON.stringify(entry)).not.toMatch(/hunter22/);
  });

  it('a run whose worker vanished (lease expired) is ended as error by the sweep', async () => {
    h = await scheduleHarness({ 'schedules.lock_ttl': '300ms' }, { runScript: okScript });
    const s = await h.schedules.service.create({
      name: 'orphan',
      cron_expr: '0 8 * * *',
      type: 'script',
      script_name: 'o.star',
    });
    // A claim made by a "worker" that then never renews nor finishes.
    const run = inFlightRun({
      scheduleId: s.id,
      runId: 'r1',
      fireTime: 1_700_000_000_000,
      startedAt: new Date().toISOString(),
    });
    expect(await h.schedules.runState.claim(run, 'job')).toBe('claimed');
    expect((await h.schedules.service.get(s.id)).last_run_status).toBe('running');
    // A second delivery of the same firing while the lease is alive does nothing.
    await h.schedules.executor.execute({ scheduleId: s.id, fireTime: run.fireTime, jobId: 'job' });
    expect((await h.schedules.service.get(s.id)).last_run_status).toBe('running');
    await new Promise((r) => setTimeout(r, 400));
    expect(await h.schedules.executor.sweepExpired()).toBe(1);
    const got = await h.schedules.service.get(s.id);
    expect(got.last_run_status).toBe('error');
    expect(got.last_run_error).toMatch(/stopped before the run finished/);
    expect(await h.t.ctx.redis.zcard(keys.scheduleRunning())).toBe(0);
    // Finishing twice is impossible: the sweep found nothing more.
    expect(await h.schedules.executor.sweepExpired()).toBe(0);
    expect(await h.schedules.store.runs(s.id)).toHaveLength(1);
  });
});
