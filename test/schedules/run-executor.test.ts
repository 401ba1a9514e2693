import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryPayload } from '../../src/queue/definitions.js';
import { refusedOutcome } from '../../src/queue/script-runs.js';
import { createSchedules, type Schedules } from '../../src/schedules/create-schedules.js';
import {
  capOutput,
  createRunExecutor,
  interruptedMessage,
  outputCapBytes,
  scriptOutputText,
  type ExecutorDeps,
  type RunExecutor,
} from '../../src/schedules/run-executor.js';
import { groupKeyOf } from '../../src/schedules/tick-groups.js';
import { keys } from '../../src/store/keys.js';
import { inFlightRun } from '../../src/store/schedule-run-member.js';
import { createTestContext, type TestContext } from '../support/app.js';
import { baseScheduleDeps } from './harness.js';

describe('capOutput', () => {
  it('leaves text within the cap alone', () => {
    const text = 'x'.repeat(outputCapBytes);
    expect(capOutput(text)).toBe(text);
    expect(capOutput('')).toBe('');
  });

  it('cuts text over the cap to the cap, with a marker, counting UTF-8 bytes', () => {
    const cut = capOutput('y'.repeat(outputCapBytes + 1));
    expect(Buffer.byteLength(cut, 'utf8')).toBeLessThanOrEqual(outputCapBytes);
    expect(cut.endsWith('\n…[output truncated at 64 KiB]')).toBe(true);
  });

  it('cuts on a character boundary, never leaving a replacement character', () => {
    const cut = capOutput('€'.repeat(30_000), 1000);
    expect(Buffer.byteLength(cut, 'utf8')).toBeLessThanOrEqual(1000);
    expect(cut).not.toContain('\uFFFD');
    expect(cut.startsWith('€€€')).toBe(true);
  });
});

describe('scriptOutputText', () => {
  it('gives a wrapped string as its text, None as nothing, anything else as indented JSON', () => {
    expect(scriptOutputText({ value: 'a\nb "c"' })).toBe('a\nb "c"');
    expect(scriptOutputText('plain')).toBe('plain');
    expect(scriptOutputText({ value: null })).toBe('');
    expect(scriptOutputText(undefined)).toBe('');
    expect(scriptOutputText({ value: 7 })).toBe('7');
    expect(scriptOutputText({ value: [1, 'x'] })).toBe('[\n  1,\n  "x"\n]');
    expect(scriptOutputText({ a: 1, value: 'v' })).toBe('{\n  "a": 1,\n  "value": "v"\n}');
  });
});

describe('run executor', () => {
  let t: TestContext;
  let schedules: Schedules;
  let delivered: DeliveryPayload[];
  let disabled: string[];
  let agentCalls: Array<[string, number, string]>;
  let requests: object[];

  const executor = (deps: Partial<ExecutorDeps> = {}): RunExecutor =>
    createRunExecutor({
      store: schedules.store,
      runState: schedules.runState,
      redact: (text) => text.replaceAll('hunter2', '[REDACTED:PASSWORD]'),
      runScript: async ({ name, args, origin }) => {
        requests.push({ name, args, origin });
        if (name === 'gone.star') return refusedOutcome('not_found', 'script gone.star not found');
        return name === 'fail.star'
          ? { success: false, error: 'boom hunter2', duration_ms: 1, logs: ['line 1', 'line 2'] }
          : { success: true, result: { name, secret: 'hunter2' }, duration_ms: 1, logs: [] };
      },
      runAgent: async (prompt, timeoutMs, title) => {
        agentCalls.push([prompt, timeoutMs, title]);
        return `reply to ${prompt}`;
      },
      onDisabled: async (id) => void disabled.push(id),
      enqueueDelivery: async (p) => void delivered.push(p),
      misfireWindowMs: 60_000,
      agentTimeoutMs: 12_345,
      leaseMs: 5_000,
      log: { warn: () => {} },
      ...deps,
    });

  beforeEach(async () => {
    t = await createTestContext(
      { 'webhooks.channels': { ops: 'http://127.0.0.1:9/hook' } },
      'executor',
    );
    schedules = createSchedules(baseScheduleDeps(t.ctx));
    delivered = [];
    disabled = [];
    agentCalls = [];
    requests = [];
  });
  afterEach(() => t.close());

  const create = (extra: object = {}) =>
    schedules.service.create({
      name: 'job',
      cron_expr: '0 8 * * *',
      type: 'script',
      script_name: 'ok.star',
      enabled: false,
      ...extra,
    });
  const recentFire = () => Math.floor(Date.now() / 1000) * 1000 - 1000;

  it('runs a script and records its dict result as indented JSON text, redacted', async () => {
    const s = await create();
    const fire = recentFire();
    await executor().execute({ scheduleId: s.id, fireTime: fire, jobId: 'j1' });
    const [run] = await schedules.store.runs(s.id);
    expect(run).toMatchObject({
      status: 'success',
      error: '',
      output: '{\n  "name": "ok.star",\n  "secret": "[REDACTED:PASSWORD]"\n}',
      scheduled_at: new Date(fire).toISOString(),
    });
    expect(requests).toEqual([{ name: 'ok.star', args: {}, origin: 'schedule' }]);
    expect(await schedules.service.get(s.id)).toMatchObject({
      last_run_status: 'success',
      last_run_output: run?.output,
    });
    expect(await t.ctx.redis.zcard(keys.scheduleRunning())).toBe(0);
  });

  it('records a refused script (gone, unapproved, modified) as error with the reason', async () => {
    const s = await create({ script_name: 'gone.star' });
    await executor().execute({ scheduleId: s.id, fireTime: null, jobId: 'manual-0' });
    expect((await schedules.store.runs(s.id))[0]).toMatchObject({
      status: 'error',
      error: 'script gone.star not found',
      output: '',
    });
  });

  it('records a failed script as error with its logs as output', async () => {
    const s = await create({ script_name: 'fail.star' });
    await executor().execute({ scheduleId: s.id, fireTime: null, jobId: 'manual-1' });
    expect((await schedules.store.runs(s.id))[0]).toMatchObject({
      status: 'error',
      error: 'boom [REDACTED:PASSWORD]',
      output: 'line 1\nline 2',
      scheduled_at: null,
    });
  });

  it('records a thrown runner error, and a missing runner, as the run error', async () => {
    const s = await create();
    await executor({
      runScript: async () => {
        throw new Error('queue gone');
      },
    }).execute({ scheduleId: s.id, fireTime: null, jobId: 'm1' });
    // A process without a script runner or an engine.
    const none = createRunExecutor({
      store: schedules.store,
      runState: schedules.runState,
      redact: (x) => x,
      onDisabled: async () => {},
      enqueueDelivery: async () => {},
      misfireWindowMs: 60_000,
      agentTimeoutMs: 1000,
      leaseMs: 5_000,
      log: { warn: () => {} },
    });
    await none.execute({ scheduleId: s.id, fireTime: null, jobId: 'm2' });
    const a = await create({ type: 'agent', prompt: 'p', script_name: undefined });
    await none.execute({ scheduleId: a.id, fireTime: null, jobId: 'm3' });
    expect((await schedules.store.runs(s.id)).map((r) => r.error)).toEqual([
      'script runs are not available in this process',
      'queue gone',
    ]);
    expect((await schedules.store.runs(a.id))[0]?.error).toBe(
      'no AI engine is configured for agent schedules',
    );
  });

  it('runs an agent schedule with the configured timeout and a schedule:<name> title', async () => {
    const s = await create({
      type: 'agent',
      prompt: 'Brief me',
      script_name: undefined,
      name: 'brief',
    });
    await executor().execute({ scheduleId: s.id, fireTime: null, jobId: 'm1' });
    expect(agentCalls).toEqual([['Brief me', 12_345, 'schedule:brief']]);
    expect((await schedules.store.runs(s.id))[0]?.output).toBe('reply to Brief me');
  });

  it('runs one firing once, however often it is delivered', async () => {
    const s = await create();
    const fire = recentFire();
    const ex = executor();
    await Promise.all([
      ex.execute({ scheduleId: s.id, fireTime: fire, jobId: 'a' }),
      ex.execute({ scheduleId: s.id, fireTime: fire, jobId: 'b' }),
      executor().execute({ scheduleId: s.id, fireTime: fire, jobId: 'c' }),
    ]);
    expect(await schedules.store.runs(s.id)).toHaveLength(1);
  });

  it('does nothing for a deleted schedule or a firing already recorded as missed', async () => {
    const s = await create();
    const fire = recentFire();
    await t.ctx.redis.hset(keys.schedule(s.id), 'misfire_through', String(fire));
    await executor().execute({ scheduleId: s.id, fireTime: fire, jobId: 'j' });
    await executor().execute({ scheduleId: 'gone', fireTime: fire, jobId: 'j' });
    expect(await schedules.store.runs(s.id)).toEqual([]);
  });

  it('records a firing picked up after the misfire window as skipped, without running it', async () => {
    const s = await create();
    const fire = Date.now() - 120_000;
    let ran = false;
    await executor({
      runScript: async () => {
        ran = true;
        return { success: true, result: null, duration_ms: 1, logs: [] };
      },
    }).execute({ scheduleId: s.id, fireTime: fire, jobId: 'j' });
    expect(ran).toBe(false);
    const [entry] = await schedules.store.runs(s.id);
    expect(entry).toMatchObject({ status: 'skipped', started_at: null });
    expect(entry?.error).toMatch(
      /^not run: picked up 12\d s after its fire time, outside the misfire window$/,
    );
  });

  it('queues a delivery for a schedule with an output target, marking it pending', async () => {
    const s = await create({ output_target: { provider: 'webhook', channel_id: 'ops' } });
    await executor().execute({ scheduleId: s.id, fireTime: null, jobId: 'm' });
    const [run] = await schedules.store.runs(s.id);
    expect(run?.delivery).toEqual({ status: 'pending' });
    expect(delivered).toEqual([
      {
        scheduleId: s.id,
        runId: run?.id,
        provider: 'webhook',
        channelId: 'ops',
        status: 'success',
        error: '',
        output: run?.output,
        at: run?.finished_at,
      },
    ]);
  });

  it('a run_once schedule is disabled after its run and reported to leave its group', async () => {
    const s = await create({ run_once: true, enabled: true });
    await executor().execute({ scheduleId: s.id, fireTime: null, jobId: 'm' });
    expect(disabled).toEqual([s.id]);
    expect((await schedules.service.get(s.id)).enabled).toBe(false);
  });

  it('ends a run whose lease expired as interrupted: by the sweep, or by a second delivery', async () => {
    const s = await create();
    const fire = recentFire();
    const run = inFlightRun({
      scheduleId: s.id,
      runId: 'dead',
      fireTime: fire,
      startedAt: new Date().toISOString(),
    });
    expect(await schedules.runState.claim(run, 'j')).toBe('claimed');
    // Still leased: a second delivery leaves it to its holder.
    await executor().execute({ scheduleId: s.id, fireTime: fire, jobId: 'j2' });
    expect(await schedules.store.runs(s.id)).toEqual([]);
    await t.ctx.redis.zadd(keys.scheduleRunning(), Date.now() - 1, run.member);
    await executor().execute({ scheduleId: s.id, fireTime: fire, jobId: 'j3' });
    expect((await schedules.store.runs(s.id))[0]).toMatchObject({
      id: 'dead',
      status: 'error',
      error: interruptedMessage,
    });

    const other = inFlightRun({
      scheduleId: s.id,
      runId: 'dead2',
      fireTime: null,
      startedAt: new Date().toISOString(),
    });
    await schedules.runState.claim(other, 'manual-x');
    await t.ctx.redis.zadd(keys.scheduleRunning(), Date.now() - 1, other.member);
    expect(await executor().sweepExpired()).toBe(1);
    expect(await executor().sweepExpired()).toBe(0);
    expect((await schedules.store.runs(s.id))[0]).toMatchObject({
      id: 'dead2',
      error: interruptedMessage,
    });
  });

  it('renews the lease of a run in flight', async () => {
    const s = await create();
    let release!: () => void;
    const ex = executor({
      leaseMs: 300,
      runScript: () =>
        new Promise(
          (resolve) =>
            (release = () => resolve({ success: true, result: null, duration_ms: 1, logs: [] })),
        ),
    });
    const done = ex.execute({ scheduleId: s.id, fireTime: null, jobId: 'm' });
    let first = 0;
    while (first === 0) {
      await new Promise((r) => setTimeout(r, 10));
      const [, score] = await t.ctx.redis.zrange(keys.scheduleRunning(), 0, 0, 'WITHSCORES');
      first = Number(score ?? 0);
    }
    await new Promise((r) => setTimeout(r, 250));
    const [, later] = await t.ctx.redis.zrange(keys.scheduleRunning(), 0, 0, 'WITHSCORES');
    expect(Number(later)).toBeGreaterThan(first);
    expect(await ex.sweepExpired()).toBe(0);
    release();
    await done;
  });

  it('takes a batch of a tick, running each member once; a late tick records them as skipped', async () => {
    const a = await create({ enabled: true });
    const b = await create({ enabled: true });
    const group = groupKeyOf('0 8 * * *', 'UTC');
    const tick = { group, pattern: '0 8 * * *', tz: 'UTC' };
    const fire = recentFire();
    await t.ctx.redis.sadd(keys.scheduleTickPending(group, fire), a.id, b.id);
    const ex = executor();
    const { started, remaining } = await ex.takeBatch(tick, fire, 1);
    expect(remaining).toBe(1);
    const rest = await ex.takeBatch(tick, fire, 5);
    await Promise.all([...started, ...rest.started]);
    for (const s of [a, b])
      expect((await schedules.store.runs(s.id)).map((r) => r.status)).toEqual(['success']);

    const late = Date.now() - 120_000;
    await t.ctx.redis.sadd(keys.scheduleTickPending(group, late), a.id);
    await Promise.all((await ex.takeBatch(tick, late, 5)).started);
    expect((await schedules.store.runs(a.id))[0]?.status).toBe('skipped');
  });

  it('records firings passed over for a later one once per schedule, as one skipped entry', async () => {
    const s = await create();
    const fires = [3_000_000, 2_000_000, 1_000_000];
    await executor().skipPassedOver([s.id], fires);
    await executor().skipPassedOver([s.id], fires);
    const runs = await schedules.store.runs(s.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      status: 'skipped',
      scheduled_at: new Date(3_000_000).toISOString(),
    });
    expect(runs[0]?.error).toBe(
      `3 firing(s) from ${new Date(1_000_000).toISOString()} to ${new Date(3_000_000).toISOString()} were picked up after a later firing was due; only the latest ran`,
    );
    await executor().skipPassedOver([s.id], []);
  });
});
