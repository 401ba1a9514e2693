import { randomBytes } from 'node:crypto';
import { Queue, QueueEvents, type Job, type JobsOptions } from 'bullmq';
import { QueueTimeoutError, WorkerStoppedError } from '../errors/queue-errors.js';
import { createJobLockProbe, type JobLockProbe } from '../store/job-lock-probe.js';
import { bullPrefix, createRedis, type Redis, type RedisTarget } from '../store/redis.js';
import { queues, type PayloadOf, type QueueKey, type ResultOf } from './definitions.js';

export interface QueueClient {
  enqueue<K extends QueueKey>(key: K, payload: PayloadOf<K>, opts?: JobsOptions): Promise<string>;
  /** Enqueues and waits for the job's result; rejects with QueueTimeoutError after `timeoutMs`. */
  run<K extends QueueKey>(
    key: K,
    payload: PayloadOf<K>,
    timeoutMs: number,
    opts?: JobsOptions,
  ): Promise<ResultOf<K>>;
  queue(key: QueueKey): Queue;
  /**
   * A worker of this process finished job `jobId` (BullMQ has stored the outcome): a caller of
   * this process waiting in `run` hears of it now instead of through the event stream, a Redis
   * round trip and a wake-up later. A job no caller here waits for is ignored.
   */
  finished(jobId: string, outcome: JobOutcome): void;
  /** True when the queue's Redis connection is up (for `run` → 503 when it is not). */
  available(): boolean;
  /**
   * Ends every `run` still waiting with `err` (shutdown: their callers get an answer instead of
   * a cut connection) and removes their jobs if no worker has taken them yet.
   */
  abandonWaits(err: Error): void;
  close(): Promise<void>;
}

/** How a job ended, as its caller hears it: the stored result, or the processor's error text. */
export type JobOutcome = { ok: true; value: unknown } | { ok: false; reason: string };

/**
 * Waits for `settled` (the job's outcome, see `run`) at most `timeoutMs`, then rejects with
 * QueueTimeoutError; rejects with WorkerStoppedError when the worker holding the job died.
 */
async function waitForResult(
  job: Job,
  settled: Promise<unknown>,
  timeoutMs: number,
  locks: JobLockProbe,
): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  let watch: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new QueueTimeoutError(timeoutMs)), timeoutMs);
  });
  // A worker that dies mid-run leaves its job active until BullMQ's stall check, which needs
  // another worker and its lock to expire: the caller looks itself ("active without its lock",
  // read atomically: src/store/job-lock-probe.ts).
  const stopped = new Promise<never>((_resolve, reject) => {
    const look = () => {
      watch = setTimeout(() => {
        void (async () => {
          if (await locks.workerLost(job.id as string)) {
            reject(new WorkerStoppedError());
            return;
          }
          look();
        })().catch(look);
      }, workerWatchMs);
    };
    look();
  });
  try {
    return await Promise.race([settled, deadline, stopped]);
  } finally {
    clearTimeout(timer);
    clearTimeout(watch);
  }
}

/** How often a waiting caller checks that the worker running its job is still there. */
const workerWatchMs = 500;

/**
 * Jobs nobody waits for (`enqueue`) are kept briefly after they finish, failed ones longer. A job
 * someone waits for (`run`) goes as it completes: its result travels in the completion event, and
 * its data holds the run's arguments, which may be sensitive.
 */
const defaultJobOptions: JobsOptions = {
  removeOnComplete: { age: 3600, count: 1000 },
  removeOnFail: { age: 24 * 3600, count: 1000 },
};
const awaitedJobOptions: JobsOptions = { removeOnComplete: true };

/**
 * `onError` hears connection errors (Redis down, refused) of the client's connections, queues
 * and event streams: without a listener, ioredis and BullMQ print each failed reconnect to
 * stderr, around the logger.
 */
export function createQueueClient(
  target: RedisTarget,
  onError: (err: Error) => void = () => {},
): QueueClient {
  const connection: Redis = createRedis(target, 'bullmq');
  connection.on('error', onError);
  const prefix = bullPrefix(target.prefix);
  const probes = new Map<QueueKey, JobLockProbe>();
  const waiting = new Set<(err: Error) => void>();
  /**
   * Callers of `run`, by job id. The id is ours (unique to this client), so a caller is filed
   * before its job exists, and no outcome can arrive before someone is there to hear it.
   */
  const waiters = new Map<string, (outcome: JobOutcome) => void>();
  const idPrefix = `r-${randomBytes(6).toString('hex')}-`;
  let sequence = 0;
  const settle = (jobId: string, outcome: JobOutcome) => {
    const waiter = waiters.get(jobId);
    if (!waiter) return;
    waiters.delete(jobId);
    waiter(outcome);
  };
  const probe = (key: QueueKey) => {
    let p = probes.get(key);
    if (!p) probes.set(key, (p = createJobLockProbe(connection, `${prefix}:${queues[key].name}`)));
    return p;
  };
  const open = new Map<QueueKey, Queue>();
  const events = new Map<QueueKey, QueueEvents>();
  // BullMQ does not close connections it was handed; we close them ourselves.
  const eventConnections: Redis[] = [];

  const queue = (key: QueueKey): Queue => {
    let q = open.get(key);
    if (!q) {
      q = new Queue(queues[key].name, { connection, prefix, defaultJobOptions });
      // Every caller waiting in `run` adds a 'closing' listener (BullMQ's waitUntilFinished);
      // dozens at once are normal, not a leak.
      q.setMaxListeners(0);
      // BullMQ prints an 'error' nobody listens to with console.error, around the logger.
      q.on('error', onError);
      open.set(key, q);
    }
    return q;
  };
  const eventsReady = new Map<QueueKey, Promise<QueueEvents>>();
  /**
   * One QueueEvents per queue, shared by every caller. Callers wait for the same readiness
   * promise, and reading starts at Redis's clock when it was created, not at `$` when its first
   * XREAD happens to run: a job finishing in between would otherwise never be seen by the
   * callers of a burst (their runs then time out).
   */
  const queueEvents = (key: QueueKey): Promise<QueueEvents> => {
    let ready = eventsReady.get(key);
    if (!ready) {
      ready = (async () => {
        const eventsConnection = createRedis(target, 'bullmq');
        eventsConnection.on('error', onError);
        eventConnections.push(eventsConnection);
        const [seconds, micros] = await eventsConnection.time();
        const ev = new QueueEvents(queues[key].name, {
          connection: eventsConnection,
          prefix,
          blockingTimeout: 5000,
          lastEventId: `${Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)}-0`,
        });
        ev.on('error', onError);
        // One listener for every caller (not one per job, as BullMQ's waitUntilFinished adds).
        ev.on('completed', ({ jobId, returnvalue }) =>
          settle(jobId, { ok: true, value: returnvalue }),
        );
        ev.on('failed', ({ jobId, failedReason }) =>
          settle(jobId, { ok: false, reason: failedReason }),
        );
        events.set(key, ev);
        await ev.waitUntilReady();
        return ev;
      })();
      eventsReady.set(key, ready);
    }
    return ready;
  };

  return {
    queue,
    available: () => connection.status === 'ready',
    async enqueue(key, payload, opts) {
      const data = queues[key].payload.parse(payload);
      const job = await queue(key).add(queues[key].name, data, opts);
      return job.id as string;
    },
    abandonWaits(err) {
      for (const abandon of [...waiting]) abandon(err);
    },
    finished(jobId, outcome) {
      // The same value the event stream would carry: BullMQ stores the result as JSON.
      settle(
        jobId,
        outcome.ok
          ? { ok: true, value: JSON.parse(JSON.stringify(outcome.value) ?? 'null') }
          : outcome,
      );
    },
    async run(key, payload, timeoutMs, opts) {
      await queueEvents(key);
      const data = queues[key].payload.parse(payload);
      const jobId = `${idPrefix}${++sequence}`;
      const settled = new Promise<unknown>((resolve, reject) => {
        waiters.set(jobId, (outcome) =>
          outcome.ok ? resolve(outcome.value) : reject(new Error(outcome.reason)),
        );
      });
      // Never an unhandled rejection when the wait below has already ended another way.
      settled.catch(() => {});
      let job: Job;
      try {
        job = await queue(key).add(queues[key].name, data, {
          ...awaitedJobOptions,
          ...opts,
          jobId,
        });
      } catch (err) {
        waiters.delete(jobId);
        throw err;
      }
      let abandon: ((err: Error) => void) | undefined;
      const abandoned = new Promise<never>((_resolve, reject) => {
        abandon = (err) => {
          // A waiting job is removed; one a worker holds is locked and stays (it cannot be undone).
          void job.remove().catch(() => {});
          reject(err);
        };
      });
      waiting.add(abandon as (err: Error) => void);
      let value: unknown;
      try {
        value = await Promise.race([waitForResult(job, settled, timeoutMs, probe(key)), abandoned]);
      } catch (err) {
        // A failed job is kept (removeOnFail): it goes once its caller has the reason. A job
        // still waiting when the caller gave up is left to the worker's own expiry check.
        if (!(err instanceof QueueTimeoutError || err instanceof WorkerStoppedError)) {
          void job.remove().catch(() => {});
        }
        throw err;
      } finally {
        waiters.delete(jobId);
        waiting.delete(abandon as (err: Error) => void);
      }
      return queues[key].result.parse(value) as ResultOf<typeof key>;
    },
    async close() {
      await Promise.allSettled([...events.values()].map((e) => e.close()));
      await Promise.allSettled([...open.values()].map((q) => q.close()));
      for (const c of eventConnections) c.disconnect();
      connection.disconnect();
    },
  };
}
