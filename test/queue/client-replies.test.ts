import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answerCallers, createQueueClient, type QueueClient } from '../../src/queue/client.js';
import { bullPrefix, createRedis } from '../../src/store/redis.js';
import { dropPrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';
import { success } from '../support/run-result.js';

const hash = `sha256:${'0'.repeat(64)}`;
const payload = (args: Record<string, unknown>) =>
  ({ name: 'x.star', hash, args, origin: 'api', allowUnapproved: false }) as const;

/** A script-runs worker whose outcomes `answering` tells (another process's client, or ours). */
function startWorker(prefix: string, answering: QueueClient, concurrency = 5) {
  const connection = createRedis({ url: testRedisUrl(), prefix }, 'bullmq');
  const worker = new Worker(
    'script-runs',
    answerCallers(answering, async (job) => {
      if (job.data.args.fail) throw new Error('no such luck');
      return { success: true, result: job.data.args, duration_ms: 0, logs: [] };
    }),
    { connection, prefix: bullPrefix(prefix), concurrency },
  );
  return {
    worker,
    async close() {
      await worker.close();
      connection.disconnect();
    },
  };
}

describe('queue client answers', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  // Answers for another process wait in its reply list: every job finishes before the caller's
  // process reads its first answer, and none is lost.
  it('keeps answers that arrive before their process reads them', async () => {
    const prefix = uniquePrefix('queue-late-read');
    const target = { url: testRedisUrl(), prefix };
    const count = 5;
    let releaseReads!: () => void;
    const readsReleased = new Promise<void>((r) => (releaseReads = r));
    const blmpop = Redis.prototype.blmpop;
    vi.spyOn(Redis.prototype, 'blmpop').mockImplementation(async function (
      this: Redis,
      ...args: unknown[]
    ) {
      await readsReleased;
      return (blmpop as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    } as typeof blmpop);
    const workerSide = createQueueClient(target);
    const { worker, close } = startWorker(prefix, workerSide, count);
    let finished = 0;
    worker.on('completed', () => {
      if (++finished === count) releaseReads();
    });
    const client = createQueueClient(target);
    try {
      const results = await Promise.all(
        Array.from({ length: count }, (_, i) => client.run('scriptRuns', payload({ i }), 5_000)),
      );
      expect(results.map((r) => (success(r) as { i: number }).i)).toEqual(
        Array.from({ length: count }, (_, i) => i),
      );
    } finally {
      await client.close();
      await close();
      await workerSide.close();
      await dropPrefix(prefix);
    }
  });

  // The worker answers through the caller's own client: its reply list is never read here, so
  // an answer can only arrive directly.
  it('answers a caller of its own process directly, results and failures alike', async () => {
    const prefix = uniquePrefix('queue-local');
    const target = { url: testRedisUrl(), prefix };
    vi.spyOn(Redis.prototype, 'blmpop').mockImplementation(() => new Promise(() => {}));
    const client = createQueueClient(target);
    const { close } = startWorker(prefix, client);
    try {
      const result = await client.run('scriptRuns', payload({ i: 7 }), 5_000);
      expect(result).toEqual({ success: true, result: { i: 7 }, duration_ms: 0, logs: [] });
      await expect(client.run('scriptRuns', payload({ fail: true }), 5_000)).rejects.toThrow(
        'no such luck',
      );
      // Jobs nobody waits for (not made by `run`, or already answered) are ignored.
      await client.answer('42', { ok: false, reason: 'not for anyone' });
      await client.answer(`r-${'0'.repeat(12)}-1`, { ok: true, value: null });
    } finally {
      await close();
      await client.close();
      await dropPrefix(prefix);
    }
  });
});
