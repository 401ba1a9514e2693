import { Worker } from 'bullmq';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { QueueTimeoutError } from '../../src/errors/queue-errors.js';
import { createQueueClient } from '../../src/queue/client.js';
import { freePort } from '../../src/store/embedded-redis.js';
import { bullPrefix, createRedis } from '../../src/store/redis.js';
import { dropPrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';

const hash = `sha256:${'0'.repeat(64)}`;

describe('queue client', () => {
  const prefix = uniquePrefix('queue');
  const target = { url: testRedisUrl(), prefix };
  const connection = createRedis(target, 'bullmq');
  // A processor that answers at once, so results race the caller's subscription.
  const worker = new Worker(
    'script-runs',
    async (job) => ({ success: true, result: job.data.args, duration_ms: 0, logs: [] }),
    { connection, prefix: bullPrefix(prefix), concurrency: 50 },
  );
  afterAll(async () => {
    await worker.close();
    connection.disconnect();
    await dropPrefix(prefix);
  });

  it('answers every caller of a burst sent before its event stream was ready', async () => {
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
      expect(results.map((r) => (r.result as { i: number }).i)).toEqual(
        Array.from({ length: 60 }, (_, i) => i),
      );
      // 60 waiting callers are 60 'closing' listeners on one queue: expected, not a leak.
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
      await client.close();
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
      expect(result.result).toEqual({ password: 'hunter2' });
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
