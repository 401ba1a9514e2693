import type { QueueClient } from '../../queue/client.js';
import { deliveryPayload, type DeliveryPayload } from '../../queue/definitions.js';
import type { RunState } from '../schedule-records.js';

/**
 * One `deliveries` job per run, named by the run (BullMQ ignores an add whose job id exists), so
 * that enqueueing a delivery again — the finisher and a sweep both, or two sweeps — never makes
 * a second job.
 */
export function deliveryJobId(runId: string): string {
  return `delivery-${runId}`;
}

/** How a delivery the sweep found pending stood in the queue, and what the sweep did. */
export type Redelivery = 'enqueued' | 'retried' | 'in progress';

export function createDeliveryQueue(
  queues: Pick<QueueClient, 'enqueue' | 'queue'>,
  opts: { attempts: number },
) {
  async function enqueue(payload: DeliveryPayload): Promise<void> {
    await queues.enqueue('deliveries', payload, {
      jobId: deliveryJobId(payload.runId),
      attempts: opts.attempts,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: { age: 600, count: 1000 },
      removeOnFail: { age: 24 * 3600, count: 1000 },
    });
  }

  /**
   * Brings a delivery still pending back to the queue: its job was never made (the finisher
   * died first) or is gone, or BullMQ failed it without an outcome (its workers died mid-job
   * more often than `maxStalledCount` allows). A job waiting, delayed or active is left alone.
   * A retry sends only what its chat claims say was never sent: a part whose send began is
   * recorded `unknown`, not sent again.
   */
  async function redeliver(payload: DeliveryPayload): Promise<Redelivery> {
    const job = await queues.queue('deliveries').getJob(deliveryJobId(payload.runId));
    if (!job) {
      await enqueue(payload);
      return 'enqueued';
    }
    if (!(await job.isFailed())) return 'in progress';
    await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    return 'retried';
  }

  return { enqueue, redeliver };
}

export type DeliveryQueue = ReturnType<typeof createDeliveryQueue>;

/**
 * Every delivery pending longer than `graceMs` goes back to the queue if it left it without an
 * outcome (see `redeliver`). Safe in every worker at once: each pending delivery is handed to one
 * sweep per wait, and a job id per run makes a second enqueue a no-op.
 */
export function createDeliverySweep(deps: {
  runState: Pick<RunState, 'overdueDeliveries'>;
  queue: Pick<DeliveryQueue, 'redeliver'>;
  log: { warn(obj: object, msg: string): void };
}) {
  return async (graceMs: number, now = Date.now()): Promise<number> => {
    let redelivered = 0;
    for (const { runId, payload } of await deps.runState.overdueDeliveries(now - graceMs, now)) {
      const parsed = deliveryPayload.safeParse(payload);
      if (!parsed.success) {
        deps.log.warn({ run: runId }, 'pending delivery with an unreadable payload');
        continue;
      }
      try {
        if ((await deps.queue.redeliver(parsed.data)) !== 'in progress') redelivered++;
      } catch (err) {
        deps.log.warn({ run: runId, err: (err as Error).message }, 'redelivery failed');
      }
    }
    return redelivered;
  };
}
