import { Redis, type RedisOptions } from 'ioredis';

export type { Redis };

export interface RedisTarget {
  url: string;
  /** Prefix of every key this deployment owns, e.g. `steward:`. */
  prefix: string;
  /** Sentinels to ask for the primary (`redis.sentinels`); the URL's host is then unused. */
  sentinels?: ReadonlyArray<{ host: string; port: number }>;
  sentinelName?: string;
}

/** The target of a config: `host:port` sentinels parsed once. */
export function redisTargetOf(
  url: string,
  redis: { prefix: string; sentinels: readonly string[]; sentinel_name: string },
): RedisTarget {
  if (redis.sentinels.length === 0) return { url, prefix: redis.prefix };
  return {
    url,
    prefix: redis.prefix,
    sentinels: redis.sentinels.map((entry) => {
      const at = entry.lastIndexOf(':');
      return { host: entry.slice(0, at), port: Number(entry.slice(at + 1)) };
    }),
    sentinelName: redis.sentinel_name,
  };
}

/**
 * The one place connections are made. Store connections apply the key prefix through ioredis
 * (`keyPrefix` also prefixes the KEYS of Lua scripts); BullMQ connections must not, since BullMQ
 * applies its own `prefix` (see `bullPrefix`).
 */
export function createRedis(
  target: RedisTarget,
  kind: 'store' | 'bullmq' | 'subscriber' = 'store',
  extra: RedisOptions = {},
): Redis {
  const options: RedisOptions = {
    lazyConnect: false,
    enableAutoPipelining: kind === 'store',
    ...(kind === 'store' ? { keyPrefix: target.prefix } : {}),
    // BullMQ blocks on its connections and requires this to be null.
    ...(kind === 'bullmq' ? { maxRetriesPerRequest: null } : { maxRetriesPerRequest: 3 }),
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    ...(target.sentinels
      ? {
          sentinels: [...target.sentinels],
          name: target.sentinelName ?? 'mymaster',
          // Not ioredis's `failoverDetector`: a switch announced while the connection is being
          // re-resolved ends it for good ("Connection is closed.", status end), seen in the
          // failover test. A killed primary is noticed by its closed socket anyway, and a
          // demoted one by READONLY below.
          sentinelRetryStrategy: (attempt: number) => Math.min(attempt * 200, 2000),
          // A demoted primary answers writes with READONLY: reconnect (to the new primary) and
          // send the command again.
          reconnectOnError: (err: Error) => (err.message.startsWith('READONLY') ? 2 : false),
        }
      : {}),
    ...extra,
  };
  return new Redis(target.url, options);
}

export function bullPrefix(prefix: string): string {
  return `${prefix}bull`;
}

/** Resolves once the connection answers PING, or rejects after `timeoutMs`. */
export async function waitForRedis(redis: Redis, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      await redis.ping();
      return;
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`Redis did not answer within ${timeoutMs} ms: ${String(lastError)}`);
}

/**
 * Resolves once the connection answers PING, however long Redis takes: a process started before
 * its Redis waits for it instead of exiting. Attempts back off from 100 ms to 5 s; `onRetry` is
 * told of each failed one.
 */
export async function untilRedisAnswers(
  redis: Redis,
  onRetry: (attempt: number, err: unknown) => void = () => {},
): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      if (redis.status === 'end') throw new Error('Connection is closed.');
      await redis.ping();
      return;
    } catch (err) {
      if (redis.status === 'end') throw err;
      onRetry(attempt, err);
      await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** (attempt - 1), 5000)));
    }
  }
}

/**
 * Durability check of DESIGN.md: warn when a Redis restart would lose everything. Returns the
 * warning text, or null when AOF or RDB snapshots are on.
 */
export async function durabilityWarning(redis: Redis): Promise<string | null> {
  try {
    const aof = (await redis.config('GET', 'appendonly')) as string[];
    const save = (await redis.config('GET', 'save')) as string[];
    const aofOn = aof[1] === 'yes';
    const saveOn = typeof save[1] === 'string' && save[1].trim() !== '';
    if (aofOn || saveOn) return null;
    return 'Redis has neither AOF (appendonly) nor RDB snapshots (save) enabled: every script, secret, schedule and the admin account will be lost when Redis restarts. Run Redis with appendonly yes.';
  } catch {
    // Managed Redis services often refuse CONFIG; we cannot tell, so we say nothing.
    return null;
  }
}

const readyWaits = new WeakMap<Redis, Promise<void>>();

/**
 * Resolves true once the connection is ready, or false after `ms`. Callers waiting out one
 * outage share a single 'ready' listener, so a burst of requests adds none of its own.
 */
export function whenReady(redis: Redis, ms: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  let ready = readyWaits.get(redis);
  if (!ready) {
    ready = new Promise<void>((resolve) =>
      redis.once('ready', () => {
        readyWaits.delete(redis);
        resolve();
      }),
    );
    readyWaits.set(redis, ready);
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([ready.then(() => true), late]).finally(() => clearTimeout(timer));
}

/** Errors ioredis gives a command when Redis is unreachable, as opposed to a Redis reply error. */
export function isStoreUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'MaxRetriesPerRequestError') return true;
  if (err.message === 'Connection is closed.') return true;
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ETIMEDOUT';
}

/**
 * Waits until `replicas` replicas have every write this connection sent so far (Redis WAIT),
 * at most `timeoutMs`; answers how many confirmed.
 */
export async function waitForReplicas(
  redis: Redis,
  replicas: number,
  timeoutMs: number,
): Promise<number> {
  return Number(await redis.wait(replicas, timeoutMs));
}
