import type { Logger } from '../log/logger.js';
import { keys } from '../store/keys.js';
import type { Redis } from '../store/redis.js';
import type { SecretCrypto } from './crypto.js';
import { openRedactionSet } from './redaction-set.js';
import { createRedactor, emptyRedactor, type Redactor } from './redactor.js';

export interface RedactionService {
  /** The redactor for the newest set loaded; empty until `ready`. */
  current(): Redactor;
  redact(text: string): string;
  /** Version of the set `current()` was built from (0: nothing stored yet). */
  version(): number;
  /** Resolves after the first load; rejects when that load fails (e.g. a wrong key). */
  readonly ready: Promise<void>;
  /** Loads now if the stored version differs; for callers that just wrote a secret. */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

export interface RedactionServiceDeps {
  /** A store connection (key prefix applied by ioredis). */
  redis: Redis;
  /** Makes the connection for SUBSCRIBE, e.g. `() => createRedis(target, 'subscriber')`; owned by the service. */
  subscriberFactory?: () => Redis;
  crypto: SecretCrypto;
  log?: Logger;
  /** Fallback polling of the version counter, for a missed message. */
  pollMs?: number;
  /** Deployment prefix for the channel; defaults to the connection's key prefix. */
  prefix?: string;
}

/**
 * Keeps every process's redactor current: loads the encrypted set at start, reloads when a change
 * is published, and polls the version counter in case a message was lost (a reconnect, say).
 */
export function createRedactionService(deps: RedactionServiceDeps): RedactionService {
  const { redis, crypto, log } = deps;
  const prefix = deps.prefix ?? redis.options.keyPrefix ?? '';
  const channel = keys.redactionChannel(prefix);
  let redactor: Redactor = emptyRedactor;
  let loadedVersion = -1;
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;

  async function load(): Promise<void> {
    const result = await redis.multi().get(keys.redactionVersion()).get(keys.redactionSet()).exec();
    if (closed || result === null) return;
    const [[versionErr, rawVersion], [setErr, blob]] = result as [
      [Error | null, unknown],
      [Error | null, unknown],
    ];
    if (versionErr) throw versionErr;
    if (setErr) throw setErr;
    const version = Number(rawVersion ?? 0);
    if (version === loadedVersion) return;
    const entries = typeof blob === 'string' ? openRedactionSet(blob, crypto) : [];
    const started = performance.now();
    redactor = entries.length > 0 ? createRedactor(entries) : emptyRedactor;
    loadedVersion = version;
    log?.debug(
      {
        version,
        secrets: entries.length,
        patterns: redactor.patternCount,
        ms: Math.round(performance.now() - started),
      },
      'redaction set loaded',
    );
  }

  /** One load at a time; a change noticed during a load triggers one more. */
  function reload(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await load();
        } while (again && !closed);
      } finally {
        running = null;
      }
    })();
    return running;
  }

  const reloadQuietly = () => {
    reload().catch((err: unknown) => {
      // The last good redactor stays in place; the message names no value.
      log?.error({ err: String(err) }, 'could not reload the redaction set');
    });
  };

  const subscriber = deps.subscriberFactory?.() ?? null;
  if (subscriber) {
    subscriber.on('message', (ch: string) => {
      if (ch === channel) reloadQuietly();
    });
    // After a reconnect ioredis resubscribes; anything published meanwhile was lost.
    subscriber.on('ready', reloadQuietly);
    subscriber.on('error', (err: Error) =>
      log?.warn({ err: err.message }, 'redaction subscriber error'),
    );
  }

  const poll = async () => {
    const raw = await redis.get(keys.redactionVersion());
    if (Number(raw ?? 0) !== loadedVersion) await reload();
  };
  const timer = setInterval(() => {
    poll().catch((err: unknown) =>
      log?.warn({ err: String(err) }, 'redaction version poll failed'),
    );
  }, deps.pollMs ?? 2000);
  timer.unref();

  const ready = (async () => {
    if (subscriber) await subscriber.subscribe(channel);
    await reload();
  })();
  // Callers that never await `ready` must not crash the process with an unhandled rejection.
  ready.catch(() => {});

  return {
    current: () => redactor,
    redact: (text) => redactor.redact(text),
    version: () => Math.max(loadedVersion, 0),
    ready,
    refresh: reload,
    async close() {
      closed = true;
      clearInterval(timer);
      if (subscriber) subscriber.disconnect();
    },
  };
}
