import { Mutex } from 'redis-semaphore';
import type { Redis } from './redis.js';

export interface LockTiming {
  /** How long the lock lives without a refresh (redis-semaphore refreshes it while held). */
  lockTimeout?: number;
  acquireTimeout?: number;
}

/** Runs `fn` while holding a cluster-wide mutex on `key`; always releases. */
export async function withLock<T>(
  redis: Redis,
  key: string,
  fn: () => Promise<T>,
  timing: LockTiming = {},
): Promise<T> {
  const mutex = new Mutex(redis, key, {
    lockTimeout: timing.lockTimeout ?? 10_000,
    acquireTimeout: timing.acquireTimeout ?? 10_000,
    retryInterval: 20,
    // A lost lock only weakens ordering of scheduler syncs; the next sync repairs it.
    onLockLost: () => {},
  });
  await mutex.acquire();
  try {
    return await fn();
  } finally {
    await mutex.release();
  }
}
