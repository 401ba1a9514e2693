import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createRedis, type Redis } from '../../src/store/redis.js';

export function testRedisUrl(): string {
  return inject('redisUrl');
}

/** A key prefix no other test uses, so tests can run in parallel on one Redis. */
export function uniquePrefix(label = 't'): string {
  return `test:${label}:${randomBytes(6).toString('hex')}:`;
}

/** Deletes every key under `prefix` (store keys and BullMQ keys alike). */
export async function dropPrefix(prefix: string): Promise<void> {
  const raw = createRedis({ url: testRedisUrl(), prefix: '' }, 'bullmq');
  try {
    let cursor = '0';
    do {
      const [next, found] = await raw.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (found.length > 0) await raw.del(...found);
    } while (cursor !== '0');
  } finally {
    raw.disconnect();
  }
}

export function storeRedis(prefix: string): Redis {
  return createRedis({ url: testRedisUrl(), prefix }, 'store');
}
