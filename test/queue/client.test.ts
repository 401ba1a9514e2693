import { Worker } from 'bullmq';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { QueueTimeoutError } from '../../src/errors/queue-errors.js';
import { answerCallers, createQueueClient } from '../../src/queue/client.js';
import { freePort } from '../../src/store/embedded-redis.js';
import { bullPrefix, createRedis } from '../../src/store/redis.js';
import { dropPrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';
import { success } from '../support/run-result.js';

const hash = `sha256:${'0'.repeat(64)}`;

describe('queue client', () => {
  const prefix = uniquePrefix('queue');
  const target = { url: testRedisUrl(), prefix };
  const connection = createRedis(target, 'bullmq');
  // The worker's own process: its queue client answers callers of other processes.
  const workerSide = createQueueClient(target);
  // A processor that answers at once, so answers race their callers' first reads.
  const worker = new Worker(
    'script-runs',
    answerCallers(workerSide, async (job) => ({
      success: true,
      result: job.data.args,
      duration_ms: 0,
      logs: [],
    })),
    { connection, prefix: bullPrefix(prefix), concurrency: 50 },
  );
  afterAll(async () => {
    await worker.close();
    await workerSide.close();
    connection.disconnect();
    await dropPrefix(prefix);
  });

  it('answers every caller of a burst sent before its reply reader was ready', async () => {
    const client = createQueueClient(target);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const runs = Array.from({ length: 60 }, (_, i) =>
        client.run(
          'scriptRuns',
          { name: 'x.star', hash, args: { i }, origin: 'api', allowUnapproved: false },
          10_000,
        ),
      );
      const results = await Promise.all(runs);
      expect(results.map((r) => (success(r) as { i: number }).i)).toEqual(
        Array.from({ length: 60 }, (_, i) => i),
      );
      // 60 waiting callers are 60 'closing' listeners on one queue: expected, not a leak.
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
      await client.close();
    }
  });

  it('answers the callers of two processes, each its own results, from a worker elsewhere', async () => {
    const [a, b] = [createQueueClient(target), createQueueClient(target)];
    try {
      const ask = (client: typeof a, who: string) =>
        Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            client.run(
              'scriptRuns',
              { name: 'x.star', hash, args: { who, i }, origin: 'api', allowUnapproved: false },
              10_000,
            ),
          ),
        );
      const [fromA, fromB] = await Promise.all([ask(a, 'a'), ask(b, 'b')]);
      for (const [who, results] of [
        ['a', fromA],
        ['b', fromB],
      ] as const) {
        expect(results.map((r) => success(r))).toEqual(
          Array.from({ length: 20 }, (_, i) => ({ who, i })),
        );
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('hands the caller the reason of a job BullMQ failed without its processor answering', async () => {
    const failing = uniquePrefix('queue-failed');
    const failingTarget = { url: testRedisUrl(), prefix: failing };
    const bare = createRedis(failingTarget, 'bullmq');
    // No answerCallers: as a job failed by BullMQ itself (a stalled one) is never answered.
    const silent = new Worker(
      'script-runs',
      async () => {
        throw new Error('stalled more than allowable limit');
      },
      { connection: bare, prefix: bullPrefix(failing) },
    );
    const client = createQueueClient(failingTarget);
    try {
      await expect(
        client.run(
          'scriptRuns',
          { name: 'x.star', hash, args: {}, origin: 'api', allowUnapproved: false },
          10_000,
        ),
      ).rejects.toThrow('stalled more than allowable limit');
    } finally {
      await client.close();
      await silent.close();
      bare.disconnect();
      await dropPrefix(failing);
    }
  });

  it('drops a job, and the arguments in its data, once the caller has the result', async () => {
    const client = createQueueClient(target);
    const raw = createRedis(target, 'bullmq');
    try {
      const result = await client.run(
        'scriptRuns',
        {
          name: 'x.star',
          hash,
          args: { password: 'hunter2' },
          origin: 'api',
          allowUnapproved: false,
        },
        10_000,
      );
      expect(success(result)).toEqual({ password: 'hunter2' });
      const keysWithArgs = async () => {
        const found: string[] = [];
        for (const key of await raw.keys(`${bullPrefix(prefix)}:script-runs:*`)) {
          if ((await raw.type(key)) !== 'hash') continue;
          if ((await raw.hget(key, 'data'))?.includes('hunter2')) found.push(key);
        }
        return found;
      };
      const deadline = Date.now() + 5_000;
      while ((await keysWithArgs()).length > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(await keysWithArgs()).toEqual([]);
    } finally {
      raw.disconnect();
      await client.close();
    }
  });

  it('rejects with QueueTimeoutError when no result comes in time', async () => {
    // A prefix no worker listens on: the job waits forever.
    const lonely = uniquePrefix('queue-timeout');
    const client = createQueueClient({ url: testRedisUrl(), prefix: lonely });
    try {
      const started = Date.now();
      const err: unknown = await client
        .run(
          'scriptRuns',
          { name: 'x.star', hash, args: {}, origin: 'api', allowUnapproved: false },
          300,
        )
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(QueueTimeoutError);
      expect(err).toMatchObject({ code: 'queue_timeout', details: { timeoutMs: 300 } });
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      await client.close();
      await dropPrefix(lonely);
    }
  });

  it('hands connection errors to its listener while Redis is unreachable', async () => {
    const port = await freePort();
    const errors: Error[] = [];
    const client = createQueueClient({ url: `redis://127.0.0.1:${port}`, prefix }, (err) =>
      errors.push(err),
    );
    try {
      await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0));
      expect(errors[0]?.message).toMatch(/ECONNREFUSED/);
      expect(client.available()).toBe(false);
    } finally {
      await client.close();
    }
  });

  it('refuses a payload that fails its schema before enqueueing', async () => {
    const client = createQueueClient(target);
    try {
      await expect(
        client.enqueue('scriptRuns', {
          name: 'x.star',
          hash: 'md5:1',
          args: {},
          origin: 'api',
          allowUnapproved: false,
        }),
      ).rejects.toThrow(/hash/);
    } finally {
      await client.close();
    }
  });
});
