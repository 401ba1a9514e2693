import type { Job } from 'bullmq';
import { queues, scheduleRunPayload } from '../../queue/definitions.js';
import type { Context } from '../../runtime/context.js';
import type { Schedules } from '../../schedules/create-schedules.js';
import { tickJobName, tickPayload } from '../../schedules/tick-groups.js';
import { createLimiter, createTickRunner } from '../../schedules/tick-runner.js';
import { bullPrefix, createRedis } from '../../store/redis.js';
import { StartFirstWorker } from '../start-first-worker.js';

export interface RunningScheduleWorkers {
  close(): Promise<void>;
}

/**
 * The fire time a schedule-run job belongs to. Catch-up jobs carry it in their data; jobs made by
 * a job scheduler carry it as `opts.prevMillis` (their id is `repeat:<scheduler>:<fire time>`).
 */
export function fireTimeOf(
  job: Pick<Job, 'id' | 'opts' | 'repeatJobKey'>,
  fromData: number | null,
): number | null {
  if (fromData !== null) return fromData;
  if (!job.repeatJobKey) return null;
  if (typeof job.opts.prevMillis === 'number') return job.opts.prevMillis;
  const tail = /:(\d+)$/.exec(job.id ?? '');
  return tail ? Number(tail[1]) : null;
}

/**
 * Starts this process's `schedule-runs` and `deliveries` workers: `tick` jobs fan a firing out to
 * the schedules of their group (see tick-runner.ts), other jobs are one run (manual, catch-up).
 * First reconciles the tick groups and their job schedulers with the store (one replica at a time, under a Redis mutex) and ends runs left
 * `running` by a dead worker; then keeps sweeping expired run leases, abandoned ticks and
 * deliveries left without a job.
 */
export async function startScheduleWorkers(
  ctx: Context,
  schedules: Schedules,
): Promise<RunningScheduleWorkers> {
  const { log } = ctx;
  const report = await schedules.sync.reconcile();
  log.info(report, 'schedules reconciled');
  await schedules.executor.sweepExpired();

  const prefix = bullPrefix(ctx.redisTarget.prefix);
  const limiter = createLimiter(ctx.config.schedules.concurrency);
  const ticks = createTickRunner({
    ticks: schedules.ticks,
    executor: schedules.executor,
    limiter,
    retentionMs: schedules.claimRetentionMs,
    // A tick with more members than one process starts at once is shared with the others.
    batchSize: Math.min(256, ctx.config.schedules.concurrency),
    log,
  });
  // Other workers' ticks announce here when they have more runs than one process starts at once.
  const subscriber = createRedis(ctx.redisTarget, 'subscriber');
  subscriber.on('message', (_channel: string, message: string) => ticks.onAnnouncement(message));
  subscriber.on('error', (err: Error) => log.warn({ err: err.message }, 'tick subscriber error'));
  await subscriber.subscribe(ticks.channel);

  const runConnection = createRedis(ctx.redisTarget, 'bullmq');
  const worker = new StartFirstWorker(
    queues.scheduleRuns.name,
    async (job: Job) => {
      if (job.name === tickJobName) {
        const fireTime = fireTimeOf(job, null);
        if (fireTime !== null) await ticks.onTick(tickPayload.parse(job.data), fireTime);
        return;
      }
      const data = scheduleRunPayload.parse(job.data);
      await limiter.run(() =>
        schedules.executor.execute({
          scheduleId: data.scheduleId,
          fireTime: fireTimeOf(job, data.fireTime),
          jobId: job.id ?? '',
        }),
      );
    },
    {
      connection: runConnection,
      prefix,
      concurrency: ctx.config.schedules.concurrency,
      lockDuration: schedules.leaseMs,
      stalledInterval: schedules.leaseMs,
      // A run may have side effects: never redeliver it. Its lease expires and the sweep below
      // records it as an error instead.
      maxStalledCount: 0,
    },
  );
  worker.on('error', (err) => log.warn({ err: err.message }, 'schedule-runs worker error'));

  const deliveryConnection = createRedis(ctx.redisTarget, 'bullmq');
  const deliveryLockMs = Math.min(10_000, schedules.leaseMs);
  const deliveries = new StartFirstWorker(
    queues.deliveries.name,
    async (job: Job) => schedules.deliver(job),
    {
      connection: deliveryConnection,
      prefix,
      concurrency: 4,
      // A dead worker's delivery is taken over within ~1.5 × the lock (10 s, or schedules.lock_ttl
      // when shorter); the next one finds its claims and skips what was sent, or records
      // `unknown` for a part whose send it cannot know. A job BullMQ fails for stalling once more
      // is brought back by the delivery sweep below.
      lockDuration: deliveryLockMs,
      stalledInterval: Math.max(250, Math.floor(deliveryLockMs / 2)),
      maxStalledCount: 1,
    },
  );
  deliveries.on('error', (err) => log.warn({ err: err.message }, 'deliveries worker error'));
  await Promise.all([worker.waitUntilReady(), deliveries.waitUntilReady()]);

  // Every worker sweeps (each step is safe with several sweeping at once): runs whose lease
  // expired end as interrupted; ticks claimed a sweep ago and still holding schedules to take
  // (their claimer died) are drained; deliveries pending a sweep ago that left the queue without
  // an outcome (their finisher died before enqueueing, or BullMQ failed them as stalled) are
  // enqueued again.
  const sweepMs = Math.max(250, Math.floor(schedules.leaseMs / 2));
  const sweepOnce = async () => {
    await schedules.executor.sweepExpired();
    await ticks.recoverOpen(sweepMs);
    await schedules.sweepDeliveries(sweepMs);
  };
  const sweep = setInterval(() => {
    sweepOnce().catch((err: Error) => log.warn({ err: err.message }, 'schedule sweep failed'));
  }, sweepMs);
  sweep.unref();

  return {
    async close() {
      clearInterval(sweep);
      await subscriber.unsubscribe().catch(() => undefined);
      await Promise.allSettled([worker.close(), deliveries.close(), ticks.idle()]);
      subscriber.disconnect();
      runConnection.disconnect();
      deliveryConnection.disconnect();
    },
  };
}
