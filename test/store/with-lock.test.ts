import { afterAll, describe, expect, it } from 'vitest';
import { withLock } from '../../src/store/with-lock.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

const prefix = uniquePrefix('lock');
const redis = storeRedis(prefix);
afterAll(async () => {
  redis.disconnect();
  await dropPrefix(prefix);
});

describe('withLock', () => {
  it('runs holders of one key one at a time, and returns what fn returns', async () => {
    let inside = 0;
    let most = 0;
    const hold = (n: number) =>
      withLock(redis, 'lock:a', async () => {
        inside++;
        most = Math.max(most, inside);
        await new Promise((r) => setTimeout(r, 20));
        inside--;
        return n;
      });
    expect(await Promise.all([hold(1), hold(2), hold(3)])).toEqual([1, 2, 3]);
    expect(most).toBe(1);
  });

  it('does not hold different keys against each other', async () => {
    let release!: () => void;
    const held = withLock(redis, 'lock:b', () => new Promise<void>((r) => (release = r)));
    await expect(withLock(redis, 'lock:c', async () => 'free')).resolves.toBe('free');
    release();
    await held;
  });

  it('releases the lock when fn throws', async () => {
    await expect(
      withLock(redis, 'lock:d', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await redis.exists('lock:d')).toBe(0);
    await expect(
      withLock(redis, 'lock:d', async () => 'again', { acquireTimeout: 200 }),
    ).resolves.toBe('again');
  });

  it('gives up after acquireTimeout while another holder keeps the lock', async () => {
    let release!: () => void;
    const held = withLock(redis, 'lock:e', () => new Promise<void>((r) => (release = r)));
    await new Promise((r) => setTimeout(r, 20));
    let ran = false;
    await expect(
      withLock(
        redis,
        'lock:e',
        async () => {
          ran = true;
        },
        { acquireTimeout: 100 },
      ),
    ).rejects.toThrow();
    expect(ran).toBe(false);
    release();
    await held;
  });
});
