import { Worker } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { queues } from '../../src/queue/definitions.js';
import { createRunExecutor } from '../../src/schedules/run-executor.js';
import { groupKeyOf } from '../../src/schedules/tick-groups.js';
import { createLimiter, createTickRunner } from '../../src/schedules/tick-runner.js';
import { keys } from '../../src/store/keys.js';
import { bullPrefix, createRedis } from '../../src/store/redis.js';
import { scheduleHarness, waitFor, type ScheduleHarness } from './harness.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

/**
 * The windows in which a worker's death lost a firing's outcome (issue 42, item 6; found by
 * `npm run bench:chaos`). Each test plays the dying worker with the real pieces, stopped for good
 * at the point of death (a step that never returns: nothing after it happens, as after SIGKILL),
 * then starts a healthy worker and asks that the outcome still arrives, once.
 */
describe('a worker dying at a known point loses no outcome', () => {
  let h: ScheduleHarness | undefined;
  let hook: WebhookReceiver | undefined;
  afterEach(async () => {
    await h?.close();
    await hook?.close();
    h = undefined;
    hook = undefined;
  });

  const never = () => new Promise<never>(() => {});

  /** `held`: the POSTs (1-based) the receiver holds open, so their sender is mid-send. */
  async function setUp(held: number[] = []) {
    hook = await startWebhookReceiver((n) => !held.includes(n));
    h = await scheduleHarness(
      {
        'egress.allow': [hook.host],
        'webhooks.channels': { ops: hook.url },
        // Sweeps every 500 ms.
        'schedules.lock_ttl': '1s',
        // A held POST stays in flight for the whole test, as the send of a killed worker would.
        'egress.timeout': '120s',
      },
      { runAgent: async () => 'the reply' },
    );
    return h;
  }

  /** The run executor of the worker that dies: `dieAt` replaces the step it never returns from. */
  function executorOf(h: ScheduleHarness, enqueueDelivery: () => Promise<void>) {
    return createRunExecutor({
      store: h.schedules.store,
      runState: h.schedules.runState,
      redact: (t) => t,
      runAgent: async () => 'the reply',
      onDisabled: async () => {},
      enqueueDelivery,
      misfireWindowMs: h.t.ctx.config.schedules.misfire_window,
      agentTimeoutMs: 60_000,
      leaseMs: h.schedules.leaseMs,
      log: { warn: () => {} },
    });
  }

  /**
   * A `deliveries` worker that takes one job and dies with it: `work` is its processor (it never
   * returns), then the worker stops renewing its lock and leaves, as a killed process would.
   * Locks as the real worker's are with lock_ttl 1s, so BullMQ finds the job stalled soon after.
   */
  async function dyingDeliveryWorker(
    h: ScheduleHarness,
    work: (job: unknown) => Promise<never>,
    diesWhen: () => boolean = () => true,
  ) {
    let taken = false;
    const connection = createRedis(h.t.ctx.redisTarget, 'bullmq');
    const worker = new Worker(
      queues.deliveries.name,
      async (job) => {
        taken = true;
        return work(job);
      },
      {
        connection,
        prefix: bullPrefix(h.t.ctx.redisTarget.prefix),
        lockDuration: 1000,
        stalledInterval: 500,
        maxStalledCount: 1,
      },
    );
    await waitFor(async () => taken && diesWhen(), 20_000, 'the dying worker to take the delivery');
    await worker.close(true);
    connection.disconnect();
  }

  async function settled(id: string, scheduledAt: string | null) {
    return waitFor(
      async () => {
        const entry = (await h!.schedules.store.runs(id)).find(
          (e) => e.scheduled_at === scheduledAt,
        );
        return entry?.delivery && entry.delivery.status !== 'pending' ? entry : null;
      },
      20_000,
      'the run delivered',
    );
  }

  it('(a) killed after the run was recorded, before its delivery was enqueued: delivered once', async () => {
    const h = await setUp();
    const s = await h.schedules.service.create({
      name: 'after-finish',
      cron_expr: '0 3 * * *',
      type: 'agent',
      prompt: 'hello',
      enabled: false,
      output_target: { provider: 'webhook', channel_id: 'ops' },
    });
    void executorOf(h, never).execute({ scheduleId: s.id, fireTime: null, jobId: 'manual-a' });
    await waitFor(
      async () => (await h.schedules.store.runs(s.id))[0]?.delivery?.status === 'pending',
      10_000,
      'the run recorded with its delivery pending',
    );
    await h.startWorkers();
    const entry = await settled(s.id, null);
    expect(entry).toMatchObject({ status: 'success', output: 'the reply' });
    expect(entry.delivery).toEqual({ status: 'delivered' });
    expect(hook!.received.map((b) => b.run_id)).toEqual([entry.id]);
  });

  it('(b) a delivery whose workers die twice mid-job (BullMQ fails it as stalled) is sent once', async () => {
    const h = await setUp();
    const s = await h.schedules.service.create({
      name: 'stalled-twice',
      cron_expr: '0 3 * * *',
      type: 'agent',
      prompt: 'hello',
      enabled: false,
      output_target: { provider: 'webhook', channel_id: 'ops' },
    });
    await h.schedules.executor.execute({ scheduleId: s.id, fireTime: null, jobId: 'manual-b' });
    // Killed twice after taking the job: the second death exceeds maxStalledCount (1).
    await dyingDeliveryWorker(h, never);
    await dyingDeliveryWorker(h, never);
    await h.startWorkers();
    const entry = await settled(s.id, null);
    expect(entry).toMatchObject({ status: 'success', output: 'the reply' });
    expect(entry.delivery).toEqual({ status: 'delivered' });
    expect(hook!.received.map((b) => b.run_id)).toEqual([entry.id]);
  });

  it('(b) killed mid-POST, then killed again after taking the retry: unknown, POSTed once', async () => {
    const h = await setUp([1]);
    const s = await h.schedules.service.create({
      name: 'cut-off',
      cron_expr: '0 3 * * *',
      type: 'agent',
      prompt: 'hello',
      enabled: false,
      output_target: { provider: 'webhook', channel_id: 'ops' },
    });
    await h.schedules.executor.execute({ scheduleId: s.id, fireTime: null, jobId: 'manual-b2' });
    // The first worker's POST reaches the receiver, which never answers it.
    await dyingDeliveryWorker(
      h,
      (job) => {
        // Whatever becomes of it after the test (the receiver closes): the worker is dead.
        h.schedules
          .deliver(job as Parameters<typeof h.schedules.deliver>[0])
          .catch(() => undefined);
        return never();
      },
      () => hook!.received.length === 1,
    );
    await dyingDeliveryWorker(h, never);
    await h.startWorkers();
    const entry = await settled(s.id, null);
    expect(entry).toMatchObject({ status: 'success', output: 'the reply' });
    expect(entry.delivery?.status).toBe('unknown');
    expect(hook!.received.map((b) => b.run_id)).toEqual([entry.id]);
  });

  it('(c) killed after claiming a tick, before taking its runs: the firing runs and is delivered once', async () => {
    const h = await setUp();
    const pattern = '0 3 * * *';
    const s = await h.schedules.service.create({
      name: 'after-tick-claim',
      cron_expr: pattern,
      type: 'agent',
      prompt: 'hello',
      output_target: { provider: 'webhook', channel_id: 'ops' },
    });
    const spec = { group: groupKeyOf(pattern, 'UTC'), pattern, tz: 'UTC' };
    const executor = executorOf(h, never);
    const dying = createTickRunner({
      ticks: h.schedules.ticks,
      executor: { ...executor, takeBatch: never },
      limiter: createLimiter(8),
      retentionMs: h.schedules.claimRetentionMs,
      log: { warn: () => {} },
    });
    const fire = Date.now() - 1000;
    void dying.onTick(spec, fire);
    await waitFor(
      async () => (await h.t.ctx.redis.exists(keys.scheduleTick(spec.group, fire))) === 1,
      10_000,
      'the tick claimed',
    );
    await h.startWorkers();
    const entry = await settled(s.id, new Date(fire).toISOString());
    expect(entry).toMatchObject({ status: 'success', output: 'the reply' });
    expect(entry.delivery).toEqual({ status: 'delivered' });
    expect(await h.schedules.store.runs(s.id)).toHaveLength(1);
    expect(hook!.received.map((b) => b.run_id)).toEqual([entry.id]);
  });
});
