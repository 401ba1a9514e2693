import type { Redis } from './redis.js';

/**
 * Whether a BullMQ job's lock is held: a worker holds it (renewing it) for as long as it runs the
 * job, so an active job without its lock has lost its worker. `bullKeyPrefix` is the queue's
 * key prefix as BullMQ writes it (`<deployment prefix>bull:<queue name>`), and `redis` a
 * connection without ioredis's keyPrefix (BullMQ's kind).
 */
export function createJobLockProbe(redis: Redis, bullKeyPrefix: string) {
  return {
    async held(jobId: string): Promise<boolean> {
      return (await redis.exists(`${bullKeyPrefix}:${jobId}:lock`)) === 1;
    },
  };
}

export type JobLockProbe = ReturnType<typeof createJobLockProbe>;
