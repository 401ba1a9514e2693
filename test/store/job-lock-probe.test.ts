import { Queue, Worker, type Job } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { createJobLockProbe } from '../../src/store/job-lock-probe.js';
import { createRedis } from '../../src/store/redis.js';
import { dropPrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';

describe('job lock probe', () => {
  const prefix = uniquePrefix('lock-probe');
  const bull = `${prefix}bull`;
  const connection = createRedis({ url: testRedisUrl(), prefix: '' }, 'bullmq');
  const queue = new Queue('probe', { connection, prefix: bull });
  const probe = createJobLockProbe(connection, `${bull}:probe`);
  afterAll(async () => {
    await queue.close();
    connection.disconnect();
    await dropPrefix(prefix);
  });

  it('says a worker was lost only for an active job without its lock', async () => {
    const running = new Promise<Job>((started) => {
      const worker = new Worker(
        'probe',
        (job) =>
          new Promise<void>(() => {
            started(job);
          }),
        { connection: createRedis({ url: testRedisUrl(), prefix: '' }, 'bullmq'), prefix: bull },
      );
      // Closed without waiting: its job lost its lock on purpose and can never finish.
      afterAll(() => worker.close(true));
    });
    const waiting = await queue.add('w', {}, { delay: 60_000 });
    expect((await probe.look(waiting.id as string)).lost).toBe(false);
    const job = await queue.add('a', {});
    await running;
    expect((await probe.look(job.id as string)).lost).toBe(false);
    // The lock lapses (its worker died): active, unlocked.
    await connection.del(`${bull}:probe:${job.id}:lock`);
    expect((await probe.look(job.id as string)).lost).toBe(true);
  });

  it('reads the reason of a failed job, and only once it left the active list', async () => {
    const job = await queue.add('f', {}, { delay: 60_000 });
    const id = job.id as string;
    expect(await probe.look(id)).toEqual({ lost: false, failedReason: null });
    await connection.hset(`${bull}:probe:${id}`, 'failedReason', 'job stalled');
    expect(await probe.look(id)).toEqual({ lost: false, failedReason: 'job stalled' });
    await connection.lpush(`${bull}:probe:active`, id);
    expect(await probe.look(id)).toMatchObject({ failedReason: null });
  });
});
