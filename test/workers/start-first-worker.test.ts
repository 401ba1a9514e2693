import { Queue, type Job } from 'bullmq';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { bullPrefix, createRedis, type Redis } from '../../src/store/redis.js';
import { StartFirstWorker } from '../../src/workers/start-first-worker.js';
import { dropPrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';

/** The worker's connection, logging each BullMQ script it sends by name. */
function loggingConnection(prefix: string, log: string[]): Redis {
  const connection = createRedis({ url: testRedisUrl(), prefix }, 'bullmq');
  const send = connection.sendCommand.bind(connection);
  connection.sendCommand = ((command: { name: string; args: unknown[] }, stream?: unknown) => {
    if (command.name === 'evalsha') {
      for (const [name, script] of Object.entries(
        (connection as unknown as { scriptsSet: Record<string, { sha: string }> }).scriptsSet,
      )) {
        if (script.sha !== String(command.args[0])) continue;
        const op = name.split(':')[0]!;
        log.push(op);
        if (op === 'moveToActive') {
          // A job's fields come back as an array; none, as 0.
          void (command as unknown as { promise: Promise<unknown[]> }).promise.then((reply) =>
            log.push(Array.isArray(reply[0]) ? 'fetched a job' : 'fetched nothing'),
          );
        }
      }
    }
    return send(command as never, stream as never);
  }) as typeof connection.sendCommand;
  return connection;
}

describe('StartFirstWorker', () => {
  const prefixes: string[] = [];
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  afterAll(async () => {
    for (const prefix of prefixes) await dropPrefix(prefix);
  });

  function setUp(
    processor: (job: Job<{ i: number; ms?: number }>) => Promise<number>,
    concurrency: number,
  ) {
    const prefix = uniquePrefix('start-first');
    prefixes.push(prefix);
    const log: string[] = [];
    const connection = loggingConnection(prefix, log);
    const queueConnection = createRedis({ url: testRedisUrl(), prefix }, 'bullmq');
    const queue = new Queue('jobs', { connection: queueConnection, prefix: bullPrefix(prefix) });
    const worker = new StartFirstWorker<{ i: number; ms?: number }, number>(
      'jobs',
      async (job) => {
        log.push(`process ${job.data.i}`);
        return processor(job);
      },
      // A long block: a fetch lost to a skip would leave its job waiting out the test.
      { connection, prefix: bullPrefix(prefix), concurrency, drainDelay: 60 },
    );
    closers.push(async () => {
      await worker.close();
      await queue.close();
      connection.disconnect();
      queueConnection.disconnect();
    });
    const done = new Map<number, number>();
    worker.on('completed', (job, result) => done.set(job.data.i, result));
    const finished = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (done.size >= n ? resolve() : setTimeout(check, 5));
        check();
      });
    return { queue, worker, log, done, finished };
  }

  it('hands a job fetched from an idle queue to its processor before it fetches again', async () => {
    const { queue, worker, log, finished } = setUp(async (job) => job.data.i, 8);
    await worker.waitUntilReady();
    for (let i = 0; i < 3; i++) {
      await queue.add('j', { i });
      await finished(i + 1);
      // Let the worker go back to waiting on the empty queue.
      await new Promise((r) => setTimeout(r, 50));
    }
    for (let i = 0; i < 3; i++) {
      const at = log.indexOf(`process ${i}`);
      const fetched = log.lastIndexOf('fetched a job', at);
      expect(fetched).toBeGreaterThanOrEqual(0);
      // Between the answer that brought job i and its processing, no other fetch.
      expect(log.slice(fetched + 1, at)).toEqual([]);
    }
  });

  it('fetches ahead, as BullMQ does, while another job is being processed', async () => {
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const { queue, worker, log, finished } = setUp(async (job) => {
      if (job.data.i < 2) await held;
      return job.data.i;
    }, 8);
    await worker.waitUntilReady();
    await queue.add('j', { i: 0 });
    while (!log.includes('process 0')) await new Promise((r) => setTimeout(r, 5));
    // The worker blocks for job 1's marker and takes it; job 2 it fetches without blocking.
    await queue.addBulk([1, 2].map((i) => ({ name: 'j', data: { i } })));
    // Jobs 0 and 1 are held, so no completion brings job 2 instead.
    await finished(1);
    release();
    await finished(3);
    const at = log.indexOf('process 2');
    const fetched = log.lastIndexOf('fetched a job', at);
    // Job 2 waited for the fetch after it, which found nothing.
    expect(log.slice(fetched + 1, at)).toEqual(['moveToActive', 'fetched nothing']);
  });

  it('runs every job of bursts once, side by side up to its concurrency', async () => {
    let running = 0;
    let most = 0;
    const { queue, done, finished } = setUp(async (job) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, job.data.ms ?? 0));
      running--;
      return job.data.i * 2;
    }, 4);
    let n = 0;
    for (let burst = 0; burst < 5; burst++) {
      await queue.addBulk(
        Array.from({ length: 20 }, () => ({
          name: 'j',
          data: { i: n, ms: n++ % 3 === 0 ? 20 : 0 },
        })),
      );
      await new Promise((r) => setTimeout(r, burst * 10));
    }
    await finished(n);
    expect([...done.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i));
    expect([...done].every(([i, r]) => r === i * 2)).toBe(true);
    expect(most).toBe(4);
  });

  it('fetches each job added one at a time after the queue drained, without waiting out a block', async () => {
    const { queue, finished } = setUp(async (job) => job.data.i, 2);
    // Each job is added once the worker has drained the queue and blocks for the next marker:
    // a marker taken by a fetch that a skip answered would strand its job for the 60 s block.
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setTimeout(r, 30));
      await queue.add('j', { i });
      await finished(i + 1);
    }
  });

  it('asks Redis again once the queue was heard drained, even for a job never processed', async () => {
    const prefix = uniquePrefix('start-first');
    prefixes.push(prefix);
    const connection = createRedis({ url: testRedisUrl(), prefix }, 'bullmq');
    const queue = new Queue('jobs', { connection, prefix: bullPrefix(prefix) });
    // Its fetches made by hand: the main loop does not run (autorun off).
    class Probe extends StartFirstWorker<{ i: number }, number> {
      fetch(token: string) {
        return this.moveToActive(token);
      }
    }
    const probe = new Probe('jobs', async () => 0, {
      connection,
      prefix: bullPrefix(prefix),
      autorun: false,
    });
    closers.push(async () => {
      await probe.close();
      await queue.close();
      connection.disconnect();
    });
    await queue.addBulk([0, 1, 2].map((i) => ({ name: 'j', data: { i } })));
    expect((await probe.fetch('a'))?.data.i).toBe(0);
    // The fetch right after a fetched job that has not been processed: skipped.
    expect(await probe.fetch('b')).toBeUndefined();
    expect((await probe.fetch('c'))?.data.i).toBe(1);
    // A blocking fetch comes only after 'drained'; then the skip no longer stands.
    probe.emit('drained');
    expect((await probe.fetch('d'))?.data.i).toBe(2);
  });
});
