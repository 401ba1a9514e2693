import type { Logger } from '../log/logger.js';
import type { RedactionSetRepository } from '../store/redaction-set-repository.js';
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
  /** The sealed set, its version and its change channel. */
  redactionSet: RedactionSetRepository;
  crypto: SecretCrypto;
  log?: Logger;
  /** Fallback polling of the version counter, for a missed message. */
  pollMs?: number;
}

/**
 * Keeps every process's redactor current: loads the encrypted set at start, reloads when a change
 * is published, and polls the version counter in case a message was lost (a reconnect, say).
 */
export function createRedactionService(deps: RedactionServiceDeps): RedactionService {
  const { redactionSet, crypto, log } = deps;
  let redactor: Redactor = emptyRedactor;
  let loadedVersion = -1;
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;

  async function load(): Promise<void> {
    const stored = await redactionSet.read();
    if (closed || stored === null) return;
    const { version, blob } = stored;
    if (version === loadedVersion) return;
    const entries = blob !== null ? openRedactionSet(blob, crypto) : [];
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

  // Every change, and every reconnect (anything published meanwhile was lost), reloads.
  const watch = redactionSet.watch(reloadQuietly, (err) =>
    log?.warn({ err: err.message }, 'redaction subscriber error'),
  );

  const poll = async () => {
    if ((await redactionSet.version()) !== loadedVersion) await reload();
  };
  const timer = setInterval(() => {
    poll().catch((err: unknown) =>
      log?.warn({ err: String(err) }, 'redaction version poll failed'),
    );
  }, deps.pollMs ?? 2000);
  timer.unref();

  const ready = (async () => {
    await watch.ready;
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
      watch.close();
    },
  };
}
