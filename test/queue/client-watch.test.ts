import { Worker } from 'bullmq';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { answerCallers, createQueueClient } from '../../src/queue/client.js';
import { bullPrefix, createRedis } from '../../src/store/redis.js';
import { ownRedis, type OwnRedis } from '../support/own-redis.js';

const hash = `sha256:${'0'.repeat(64)}`;
/** The client's check on a waited-for job's worker (`workerWatchMs` in client.ts). */
const watchMs = 500;

let redis: OwnRedis;
beforeAll(async () => {
  // Its own server: the test pauses every client of it.
  redis = await ownRedis();
  await redis.start();
});
afterAll(() => redis.cleanup());

/** MULTI/EXECs the server has run: the client's worker checks are its only ones here. */
async function execs(admin: ReturnType<typeof createRedis>): Promise<number> {
  const stats = await admin.info('commandstats');
  return Number(/cmdstat_exec:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

it('stops checking on a run whose answer came while a check was still reading', async () => {
  const target = { url: redis.url, prefix: 'watch:' };
  const admin = createRedis(target, 'bullmq');
  const client = createQueueClient(target);
  const connection = createRedis(target, 'bullmq');
  // The answer arrives at ~650 ms, while the check sent at 500 ms waits for the paused server.
  const worker = new Worker(
    'script-runs',
    answerCallers(client, async () => {
      await delay(watchMs - 100);
      await admin.call('CLIENT', 'PAUSE', '400', 'ALL');
      await delay(250);
      return { success: true, result: null, duration_ms: 0, logs: [] };
    }),
    { connection, prefix: bullPrefix(target.prefix) },
  );
  try {
    await client.run(
      'scriptRuns',
      { name: 'x.star', hash, args: {}, origin: 'api', allowUnapproved: false },
      10_000,
    );
    // The paused check has answered by now; then three more periods of the check.
    await delay(500);
    const before = await execs(admin);
    await delay(3 * watchMs + 100);
    expect((await execs(admin)) - before).toBe(0);
  } finally {
    await worker.close();
    await client.close();
    connection.disconnect();
    admin.disconnect();
  }
});
