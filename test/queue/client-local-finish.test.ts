import { RedisQueueBackend, Worker } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createQueueClient, type QueueClient } from '../../src/queue/client.js';
import { bullPrefix, createRedis } from '../../src/store/redis.js';
import { dropPrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';

const hash = `sha256:${'0'.repeat(64)}`;
const payload = (args: Record<string, unknown>) =>
  ({ name: 'x.star', hash, args, origin: 'api', allowUnapproved: false }) as const;

// A worker of the caller's own process answers through `finished`; the event stream reads
// nothing in these tests, so an answer can only come that way.
describe('queue client, answered by a worker of its own process', () => {
  const prefix = uniquePrefix('queue-local');
  const target = { url: testRedisUrl(), prefix };
  const connection = createRedis(target, 'bullmq');
  let client: QueueClient;
  let worker: Worker;
  let outcome: (jobId: string, args: Record<string, unknown>) => void;

  beforeAll(async () => {
    vi.spyOn(RedisQueueBackend.prototype, 'readEvents').mockImplementation(
      () => new Promise(() => {}),
    );
    client = createQueueClient(target);
    worker = new Worker(
      'script-runs',
      async (job) => {
        outcome(job.id as string, job.data.args);
        return { success: true, result: job.data.args, duration_ms: 0, logs: [] };
      },
      { connection, prefix: bullPrefix(prefix), concurrency: 4 },
    );
    await worker.waitUntilReady();
  });
  afterEach(() => {
    outcome = () => {};
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await worker.close();
    await client.close();
    connection.disconnect();
    await dropPrefix(prefix);
  });

  it('hands the caller the result as the stored JSON would read', async () => {
    outcome = (jobId, args) =>
      client.finished(jobId, {
        ok: true,
        value: { success: true, result: { ...args, gone: undefined }, duration_ms: 0, logs: [] },
      });
    const result = await client.run('scriptRuns', payload({ i: 7 }), 5_000);
    expect(result).toEqual({ success: true, result: { i: 7 }, duration_ms: 0, logs: [] });
  });

  it("rejects with the processor's error when the job failed", async () => {
    outcome = (jobId) => client.finished(jobId, { ok: false, reason: 'no such luck' });
    await expect(client.run('scriptRuns', payload({}), 5_000)).rejects.toThrow('no such luck');
  });

  it('ignores jobs nobody in this process waits for', () => {
    expect(() =>
      client.finished('r-elsewhere-1', { ok: false, reason: 'not for us' }),
    ).not.toThrow();
  });
});
