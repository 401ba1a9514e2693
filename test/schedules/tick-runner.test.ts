import { afterEach, describe, expect, it } from 'vitest';
import { createSchedules } from '../../src/schedules/create-schedules.js';
import { baseScheduleDeps } from './harness.js';
import { groupKeyOf } from '../../src/schedules/tick-groups.js';
import { createLimiter, createTickRunner } from '../../src/schedules/tick-runner.js';
import { createRedis } from '../../src/store/redis.js';
import { keys } from '../../src/store/keys.js';
import { createTestContext, type TestContext } from '../support/app.js';

describe('tick fan-out across processes', () => {
  let t: TestContext | undefined;
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await t?.close();
    t = undefined;
  });

  /** One worker process's share: its own schedules wiring, run slots and tick runner. */
  async function processNamed(name: string, slots: number, gate: Promise<void>) {
    const schedules = createSchedules({
      ...baseScheduleDeps(t!.ctx),
      runScript: async () => {
        await gate;
        return { success: true, result: name, duration_ms: 1, logs: [] };
      },
    });
    const runner = createTickRunner({
      ticks: schedules.ticks,
      executor: schedules.executor,
      limiter: createLimiter(slots),
      retentionMs: 60_000,
      batchSize: slots,
      log: { warn: () => {} },
    });
    const subscriber = createRedis(t!.ctx.redisTarget, 'subscriber');
    subscriber.on('message', (_c: string, m: string) => runner.onAnnouncement(m));
    await subscriber.subscribe(runner.channel);
    cleanups.push(() => subscriber.disconnect());
    return { schedules, runner };
  }

  /** `count` script schedules on `cron`, and the tick spec of their group. */
  async function group(p: Awaited<ReturnType<typeof processNamed>>, count: number, cron: string) {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const s = await p.schedules.service.create({
        name: `s${i}`,
        cron_expr: cron,
        type: 'script',
        script_name: 's.star',
      });
      ids.push(s.id);
    }
    return { ids, spec: { group: groupKeyOf(cron, 'UTC'), pattern: cron, tz: 'UTC' } };
  }

  it('the claiming worker announces a large tick and the others take batches of it', async () => {
    t = await createTestContext({}, 'tickrun');
    let open = () => {};
    const gate = new Promise<void>((r) => (open = r));
    const a = await processNamed('A', 4, gate);
    const b = await processNamed('B', 4, gate);
    const { ids, spec } = await group(a, 12, '0 3 * * *');
    const fire = Math.floor(Date.now() / 1000) * 1000;
    const owner = a.runner.onTick(spec, fire);
    // The same tick seen again (by A or another replica) is not claimed twice.
    expect(await b.runner.onTick(spec, fire)).toBe(0);
    // A holds 4 runs behind the gate; B took the next batch from the list meanwhile.
    const running = async () => t!.ctx.redis.zcard(keys.scheduleRunning());
    for (let i = 0; i < 200 && (await running()) < 8; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(await running()).toBe(8);
    open();
    await owner;
    await b.runner.idle();
    const outputs = await Promise.all(ids.map((id) => a.schedules.store.runs(id)));
    expect(outputs.every((runs) => runs.length === 1)).toBe(true);
    const by = outputs.map((runs) => runs[0]?.output);
    expect(by.filter((o) => o === 'A').length).toBeGreaterThanOrEqual(4);
    expect(by.filter((o) => o === 'B').length).toBeGreaterThanOrEqual(4);
    expect(await t.ctx.redis.exists(keys.scheduleTickPending(spec.group, fire))).toBe(0);
    expect(await running()).toBe(0);
  });

  it('a tick picked up after later firings were due runs the newest and records the rest', async () => {
    t = await createTestContext({}, 'ticklate');
    const a = await processNamed('A', 8, Promise.resolve());
    const { ids, spec } = await group(a, 3, '* * * * * *');
    const now = Math.floor(Date.now() / 1000) * 1000;
    // The job of `now - 3 s` is picked up only now: BullMQ made no job for the two in between.
    expect(await a.runner.onTick(spec, now - 3000, now)).toBe(3);
    for (const id of ids) {
      const runs = await a.schedules.store.runs(id);
      expect(runs.map((r) => [r.status, r.scheduled_at])).toEqual([
        ['success', new Date(now).toISOString()],
        ['skipped', new Date(now - 1000).toISOString()],
      ]);
      expect(runs[1]?.error).toContain('3 firing(s)');
    }
    // The firing that ran claimed its tick: the job of `now` (if BullMQ made one) does nothing.
    expect(await a.runner.onTick(spec, now, now)).toBe(0);
  });
});
