import { randomBytes } from 'node:crypto';
import { DelayedError, Queue, type Job, type JobsOptions } from 'bullmq';
import { QueueTimeoutError, WorkerStoppedError } from '../errors/queue-errors.js';
import { createJobLockProbe, type JobLockProbe } from '../store/job-lock-probe.js';
import { bullPrefix, createRedis, type Redis, type RedisTarget } from '../store/redis.js';
import {
  createRunReplies,
  createRunReplyReader,
  type RunReplies,
  type RunReplyReader,
} from '../store/run-reply-repository.js';
import { queues, type PayloadOf, type QueueKey, type ResultOf } from './definitions.js';

export interface QueueClient {
  enqueue<K extends QueueKey>(key: K, payload: PayloadOf<K>, opts?: JobsOptions): Promise<string>;
  /**
   * Enqueues and waits for the job's result; rejects with QueueTimeoutError after `timeoutMs`.
   * The queue's processor must be wrapped in `answerCallers`: that is how the result comes back.
   */
  run<K extends QueueKey>(
    key: K,
    payload: PayloadOf<K>,
    timeoutMs: number,
    opts?: JobsOptions,
  ): Promise<ResultOf<K>>;
  queue(key: QueueKey): Queue;
  /**
   * Tells the caller waiting for job `jobId` in `run` how it ended: at once when that caller is
   * in this process (`steward start`), else through its process's reply list. Jobs nobody waits
   * for (`enqueue`, ids not made by `run`) are ignored.
   */
  answer(jobId: string, outcome: JobOutcome): Promise<void>;
  /** True when the queue's Redis connection is up (for `run` → 503 when it is not). */
  available(): boolean;
  /**
   * Ends every `run` still waiting with `err` (shutdown: their callers get an answer instead of
   * a cut connection) and removes their jobs if no worker has taken them yet.
   */
  abandonWaits(err: Error): void;
  close(): Promise<void>;
}

/** How a job ended, as its caller hears it: the processor's result, or its error text. */
export type JobOutcome = { ok: true; value: unknown } | { ok: false; reason: string };

/**
 * Wraps a processor of a queue that callers `run`: each outcome goes to its caller before
 * BullMQ stores it, so the caller does not wait for that round trip. A job sent back to the
 * queue (`DelayedError`) has no outcome yet.
 */
export function answerCallers<R>(
  client: Pick<QueueClient, 'answer'>,
  process: (job: Job, token?: string) => Promise<R>,
  onError: (err: Error) => void = () => {},
): (job: Job, token?: string) => Promise<R> {
  const tell = (job: Job, outcome: JobOutcome) =>
    job.id ? client.answer(job.id, outcome).catch(onError) : undefined;
  return async (job, token) => {
    let result: R;
    try {
      result = await process(job, token);
    } catch (err) {
      if (!(err instanceof DelayedError)) {
        await tell(job, { ok: false, reason: (err as Error).message });
      }
      throw err;
    }
    await tell(job, { ok: true, value: result });
    // A caller in this process was answered synchronously: its reply goes out in this turn of
    // the event loop, before BullMQ's completion of the job takes the turn (the job's lock holds
    // it meanwhile).
    await new Promise(setImmediate);
    return result;
  };
}

/** How often a waiting caller checks that the worker running its job is still there. */
const workerWatchMs = 500;
/** How long one blocking read of the reply list lasts before the next (to notice `close`). */
const replyWaitSeconds = 5;

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
  // read atomically: src/store/job-lock-probe.ts). A job BullMQ failed by itself (a stalled one)
  // was never answered by a processor: its reason is read there too.
  // A look still reading when the wait ends must not start another: each one left behind looked
  // every half second for as long as the process lived, holding its job (issue 46).
  let ended = false;
  const stopped = new Promise<never>((_resolve, reject) => {
    const look = () => {
      if (ended) return;
      watch = setTimeout(() => {
        void (async () => {
          const seen = await locks.look(job.id as string);
          if (seen.lost) return reject(new WorkerStoppedError());
          if (seen.failedReason !== null) return reject(new Error(seen.failedReason));
          look();
        })().catch(look);
      }, workerWatchMs);
    };
    look();
  });
  try {
    return await Promise.race([settled, deadline, stopped]);
  } finally {
    ended = true;
    clearTimeout(timer);
    clearTimeout(watch);
  }
}

/**
 * Jobs nobody waits for (`enqueue`) are kept briefly after they finish, failed ones longer. A job
 * someone waits for (`run`) goes as it completes: its caller has the result by then, and its data
 * holds the run's arguments, which may be sensitive.
 */
const defaultJobOptions: JobsOptions = {
  removeOnComplete: { age: 3600, count: 1000 },
  removeOnFail: { age: 24 * 3600, count: 1000 },
};
const awaitedJobOptions: JobsOptions = { removeOnComplete: true };

/** `r-<client id>-<n>`: the id of a job a caller waits for names the process to answer. */
const awaitedJobId = /^r-([0-9a-f]{12})-\d+$/;

/**
 * `onError` hears connection errors (Redis down, refused) of the client's connections and
 * queues: without a listener, ioredis and BullMQ print each failed reconnect to stderr, around
 * the logger.
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
  const clientId = randomBytes(6).toString('hex');
  let sequence = 0;
  const settle = (jobId: string, outcome: JobOutcome): boolean => {
    const waiter = waiters.get(jobId);
    if (!waiter) return false;
    waiters.delete(jobId);
    waiter(outcome);
    return true;
  };
  const probe = (key: QueueKey) => {
    let p = probes.get(key);
    if (!p) probes.set(key, (p = createJobLockProbe(connection, `${prefix}:${queues[key].name}`)));
    return p;
  };
  const open = new Map<QueueKey, Queue>();
  const queue = (key: QueueKey): Queue => {
    let q = open.get(key);
    if (!q) {
      q = new Queue(queues[key].name, { connection, prefix, defaultJobOptions });
      q.setMaxListeners(0);
      // BullMQ prints an 'error' nobody listens to with console.error, around the logger.
      q.on('error', onError);
      open.set(key, q);
    }
    return q;
  };

  // Answers for other processes go out on a store connection made on first use (a worker
  // answering callers elsewhere); this process's answers are read by one loop, started by the
  // first `run`, on a connection of its own.
  let closed = false;
  let replies: { send: RunReplies; connection: Redis } | undefined;
  const sender = () => {
    if (!replies) {
      const c = createRedis(target, 'store');
      c.on('error', onError);
      replies = { send: createRunReplies(c), connection: c };
    }
    return replies.send;
  };
  let reader: RunReplyReader | undefined;
  const readReplies = () => {
    if (reader) return;
    const c = createRedis(target, 'store', { enableAutoPipelining: false });
    c.on('error', onError);
    const r = (reader = createRunReplyReader(c, clientId));
    void (async () => {
      while (!closed) {
        let messages: string[];
        try {
          messages = await r.take(replyWaitSeconds);
        } catch {
          // Disconnected (ioredis reconnects and the list keeps every answer): look again soon.
          if (!closed) await new Promise((resolve) => setTimeout(resolve, 200));
          continue;
        }
        for (const message of messages) {
          try {
            const { jobId, outcome } = JSON.parse(message) as {
              jobId: string;
              outcome: JobOutcome;
            };
            settle(jobId, outcome);
          } catch (err) {
            onError(err as Error);
          }
        }
      }
    })();
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
    async answer(jobId, outcome) {
      // The value a caller elsewhere reads: JSON, as BullMQ stores results too.
      const text = JSON.stringify({ jobId, outcome });
      if (waiters.has(jobId)) {
        settle(jobId, JSON.parse(text).outcome as JobOutcome);
        return;
      }
      const to = awaitedJobId.exec(jobId)?.[1];
      if (to === undefined || to === clientId) return;
      await sender().send(to, text);
    },
    async run(key, payload, timeoutMs, opts) {
      readReplies();
      const data = queues[key].payload.parse(payload);
      const jobId = `r-${clientId}-${++sequence}`;
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
      closed = true;
      reader?.close();
      replies?.connection.disconnect();
      await Promise.allSettled([...open.values()].map((q) => q.close()));
      connection.disconnect();
    },
  };
}
