import { RedisQueueBackend, Worker } from 'bullmq';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createQueueClient } from '../../src/queue/client.js';
import { bullPrefix, createRedis } from '../../src/store/redis.js';
import { dropPrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';

const hash = `sha256:${'0'.repeat(64)}`;
const count = 5;

describe('queue client, event stream slow to start reading', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  // The interleaving that loses a result when reading starts at `$`: the jobs finish, and only
  // then does the event stream issue its first XREAD. Every read waits until the jobs finished.
  it('answers callers whose jobs finished before the stream read its first event', async () => {
    const prefix = uniquePrefix('queue-late-read');
    const target = { url: testRedisUrl(), prefix };
    let finished = 0;
    let releaseReads!: () => void;
    const readsReleased = new Promise<void>((r) => (releaseReads = r));

    const readEvents = RedisQueueBackend.prototype.readEvents;
    vi.spyOn(RedisQueueBackend.prototype, 'readEvents').mockImplementation(async function (
      this: RedisQueueBackend,
      id: string,
      blockTimeout: number,
    ) {
      await readsReleased;
      return readEvents.call(this, id, blockTimeout);
    });

    const connection = createRedis(target, 'bullmq');
    const worker = new Worker(
      'script-runs',
      async (job) => ({ success: true, result: job.data.args, duration_ms: 0, logs: [] }),
      { connection, prefix: bullPrefix(prefix), concurrency: count },
    );
    worker.on('completed', () => {
      if (++finished === count) releaseReads();
    });
    const client = createQueueClient(target);
    try {
      const runs = Array.from({ length: count }, (_, i) =>
        client.run(
          'scriptRuns',
          { name: 'x.star', hash, args: { i }, origin: 'api', allowUnapproved: false },
          5_000,
        ),
      );
      const results = await Promise.all(runs);
      expect(results.map((r) => (r.result as { i: number }).i)).toEqual(
        Array.from({ length: count }, (_, i) => i),
      );
    } finally {
      await client.close();
      await worker.close();
      connection.disconnect();
      await dropPrefix(prefix);
    }
  });
});
