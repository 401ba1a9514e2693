import { keys } from './keys.js';
import type { Redis } from './redis.js';

/** The sealed redaction set and the version it was written at (0: nothing stored yet). */
export interface StoredRedactionSet {
  version: number;
  /** Ciphertext of every name and value; null when no secret was ever stored. */
  blob: string | null;
}

export interface RedactionSetWatch {
  /** Resolves once subscribed to the change channel. */
  readonly ready: Promise<void>;
  close(): void;
}

export interface RedactionSetRepositoryDeps {
  /** A store connection (key prefix applied by ioredis). */
  redis: Redis;
  /** Makes the connection for SUBSCRIBE, e.g. `() => createRedis(target, 'subscriber')`; owned by the watch. */
  subscriberFactory?: () => Redis;
  /** Deployment prefix for the channel; defaults to the connection's key prefix. */
  prefix?: string;
}

/**
 * What every process reads to keep its redactor current: the sealed set with its version (one
 * MULTI, so the two always match), the version alone (a cheap poll), and the change channel the
 * secret repository publishes on with every write.
 */
export function createRedactionSetRepository(deps: RedactionSetRepositoryDeps) {
  const { redis } = deps;
  const prefix = deps.prefix ?? redis.options.keyPrefix ?? '';
  const channel = keys.redactionChannel(prefix);

  return {
    async read(): Promise<StoredRedactionSet | null> {
      const result = await redis
        .multi()
        .get(keys.redactionVersion())
        .get(keys.redactionSet())
        .exec();
      if (result === null) return null;
      const [[versionErr, rawVersion], [setErr, blob]] = result as [
        [Error | null, unknown],
        [Error | null, unknown],
      ];
      if (versionErr) throw versionErr;
      if (setErr) throw setErr;
      return {
        version: Number(rawVersion ?? 0),
        blob: typeof blob === 'string' ? blob : null,
      };
    },

    async version(): Promise<number> {
      return Number((await redis.get(keys.redactionVersion())) ?? 0);
    },

    /**
     * Calls `onChange` for every published change and after every (re)connect of the subscriber
     * (ioredis resubscribes, but anything published meanwhile was lost). Without a
     * `subscriberFactory` nothing is watched: callers rely on polling `version()`.
     */
    watch(onChange: () => void, onError: (err: Error) => void): RedactionSetWatch {
      const subscriber = deps.subscriberFactory?.() ?? null;
      if (!subscriber) return { ready: Promise.resolve(), close() {} };
      subscriber.on('message', (ch: string) => {
        if (ch === channel) onChange();
      });
      subscriber.on('ready', onChange);
      subscriber.on('error', onError);
      return {
        ready: subscriber.subscribe(channel).then(() => undefined),
        close: () => subscriber.disconnect(),
      };
    },
  };
}

export type RedactionSetRepository = ReturnType<typeof createRedactionSetRepository>;
