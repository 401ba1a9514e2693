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
  return {
    async workerLost(jobId: string): Promise<boolean> {
      const replies = await redis
        .multi()
        .exists(`${bullKeyPrefix}:${jobId}:lock`)
        .lpos(`${bullKeyPrefix}:active`, jobId)
        .exec();
      const [locked, position] = (replies ?? []).map(([err, value]) => {
        if (err) throw err;
        return value;
      });
      return locked === 0 && position !== null && position !== undefined;
    },
  };
}

export type JobLockProbe = ReturnType<typeof createJobLockProbe>;
