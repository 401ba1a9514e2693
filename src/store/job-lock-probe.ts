import type { Redis } from './redis.js';

/**
 * Whether a BullMQ job lost its worker: a worker holds the job's lock (renewing it) for as long
 * as it runs the job, so an active job without its lock has lost its worker. Both facts are read
 * in one MULTI: read one after the other, a job that went to the delayed set and came back (the
 * AI's share of threads sends jobs there) could be seen unlocked and then active, though it never
 * lost a worker. `bullKeyPrefix` is the queue's key prefix as BullMQ writes it (`<deployment
 * prefix>bull:<queue name>`), and `redis` a connection without ioredis's keyPrefix (BullMQ's kind).
 */
export function createJobLockProbe(redis: Redis, bullKeyPrefix: string) {
  /**
   * Whether the job lost its worker, and the reason it failed if it did (a job failed by
   * BullMQ itself, e.g. a stalled one, is never answered by a processor).
   */
  async function look(jobId: string): Promise<{ lost: boolean; failedReason: string | null }> {
    const replies = await redis
      .multi()
      .exists(`${bullKeyPrefix}:${jobId}:lock`)
      .lpos(`${bullKeyPrefix}:active`, jobId)
      .hget(`${bullKeyPrefix}:${jobId}`, 'failedReason')
      .exec();
    const [locked, position, failedReason] = (replies ?? []).map(([err, value]) => {
      if (err) throw err;
      return value;
    });
    const active = position !== null && position !== undefined;
    return {
      lost: locked === 0 && active,
      failedReason: !active && typeof failedReason === 'string' ? failedReason : null,
    };
  }
  return { look };
}

export type JobLockProbe = ReturnType<typeof createJobLockProbe>;
