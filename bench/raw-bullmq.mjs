// The queue's own floor for bench:scripts: BullMQ alone on the bench's Redis, a processor that
// does nothing, a job added and then waited for through QueueEvents. Two shapes of it:
// - in process: the producer, the QueueEvents and the worker in the bench's own process, as
//   `steward start` has its API and its worker in one;
// - apart: the worker in a process of its own (this file, run with an IPC channel), the producer
//   and the QueueEvents in the bench's process, as `steward api` and `steward worker` are
//   deployed: the job's pick-up and its completion then wake another process, as they do there.
import { fileURLToPath } from 'node:url';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { child } from './lib.mjs';

const connectionTo = (url) => ({ url, maxRetriesPerRequest: null });
/** As many jobs at once as the bench's highest concurrency. */
const CONCURRENCY = 32;

function startWorker(url, name) {
  return new Worker(name, async (job) => job.data, {
    connection: connectionTo(url),
    concurrency: CONCURRENCY,
  });
}

/**
 * The floor on the Redis at `url`, its queue named `name`; `apart`: its worker in a child
 * process. `one()` adds a job and waits for its result.
 */
export async function openRawBullmq(url, name, { apart = false } = {}) {
  const queue = new Queue(name, { connection: connectionTo(url) });
  queue.setMaxListeners(0);
  const events = new QueueEvents(name, { connection: connectionTo(url) });
  const worker = apart
    ? await child(fileURLToPath(import.meta.url), [url, name])
    : startWorker(url, name);
  await Promise.all([events.waitUntilReady(), apart ? null : worker.waitUntilReady()]);
  return {
    async one() {
      const job = await queue.add(name, { a: 1, b: 2 }, { removeOnComplete: { count: 1000 } });
      await job.waitUntilFinished(events, 10_000);
    },
    async close() {
      await (apart ? worker.stop() : worker.close());
      await events.close();
      await queue.close();
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send) {
  const [url, name] = process.argv.slice(2);
  const worker = startWorker(url, name);
  await worker.waitUntilReady();
  process.on('SIGTERM', async () => {
    await worker.close();
    process.exit(0);
  });
  process.send('ready');
}
