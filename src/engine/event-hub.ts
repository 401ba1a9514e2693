import type { Logger } from '../log/logger.js';
import type { EngineClient } from './client.js';
import { createEventTranslator, type ChatEvent } from './event-translator.js';

export type { ChatEvent };
export type ChatListener = (event: ChatEvent) => void;

export interface EventHubOptions {
  client: Pick<EngineClient, 'events'>;
  log: Logger;
  /** Reconnect backoff; doubles from `initialMs` up to `maxMs`, reset once events flow again. */
  backoff?: { initialMs: number; maxMs: number };
  /**
   * The engine sends `server.heartbeat` every 10 s. A connection silent for this long is dead
   * even if its socket looks open (a killed engine's children can keep it), so it is dropped.
   */
  idleTimeoutMs?: number;
  /** Bound on getting the first event of a new connection (one made while the engine boots can hang). */
  connectTimeoutMs?: number;
}

export interface EventHub {
  /** Listens to one session's chat events; returns the unsubscribe function. Starts the hub. */
  subscribe(sessionID: string, listener: ChatListener): () => void;
  /** Resolves once the event stream is open (rejects with a timeout error after `timeoutMs`). */
  whenConnected(timeoutMs?: number): Promise<void>;
  connected(): boolean;
  start(): void;
  stop(): Promise<void>;
}

/**
 * One event-stream connection per process, shared by every listener: the engine pushes every
 * event of every session down each connection, so one per chat socket would multiply the work.
 */
export function createEventHub(options: EventHubOptions): EventHub {
  const { client, log } = options;
  const backoff = options.backoff ?? { initialMs: 1000, maxMs: 30_000 };
  const idleTimeoutMs = options.idleTimeoutMs ?? 30_000;
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  const listeners = new Map<string, Set<ChatListener>>();
  const translator = createEventTranslator();
  let running: Promise<void> | null = null;
  let abort: AbortController | null = null;
  const stopping = new AbortController();
  let stopped = false;
  let watchdog: NodeJS.Timeout | null = null;
  let isConnected = false;
  let waiters: Array<() => void> = [];

  const emit = (sessionID: string, event: ChatEvent) => {
    const set = listeners.get(sessionID);
    if (!set) return;
    for (const listener of set) {
      try {
        listener(event);
      } catch (err) {
        log.warn({ err, sessionID }, 'chat listener failed');
      }
    }
  };

  const markConnected = () => {
    if (isConnected) return;
    isConnected = true;
    const ready = waiters;
    waiters = [];
    for (const resolve of ready) resolve();
  };

  // Re-armed on every event; when it fires, the connection is aborted and the loop reconnects.
  const arm = (connection: AbortController, ms: number) => {
    if (watchdog) clearTimeout(watchdog);
    watchdog = setTimeout(() => {
      log.warn({ silentForMs: ms }, 'engine event stream silent; reconnecting');
      connection.abort();
    }, ms);
  };

  async function loop(): Promise<void> {
    let delay = backoff.initialMs;
    while (!stopped) {
      const connection = new AbortController();
      abort = connection;
      arm(connection, connectTimeoutMs);
      try {
        const stream = await client.events(connection.signal, () => {
          arm(connection, idleTimeoutMs);
          markConnected();
        });
        for await (const event of stream) {
          delay = backoff.initialMs;
          const out = translator.translate(event);
          if (out) emit(out.sessionID, out.event);
        }
      } catch (err) {
        if (!stopped && !connection.signal.aborted) log.warn({ err }, 'engine event stream failed');
      }
      if (watchdog) clearTimeout(watchdog);
      if (stopped) break;
      lostConnection();
      log.info({ retryInMs: delay }, 'engine event stream closed; reconnecting');
      await sleep(delay, stopping.signal);
      delay = Math.min(delay * 2, backoff.maxMs);
    }
  }

  // A turn in flight when the stream drops would never see its `done`: tell its listeners.
  function lostConnection() {
    if (isConnected) {
      for (const sessionID of translator.busySessions()) {
        emit(sessionID, {
          type: 'error',
          content: 'Engine error: lost the connection to the AI engine',
        });
      }
    }
    isConnected = false;
    translator.reset();
  }

  const start = () => {
    if (running || stopped) return;
    running = loop();
  };

  return {
    subscribe(sessionID, listener) {
      let set = listeners.get(sessionID);
      if (!set) listeners.set(sessionID, (set = new Set()));
      set.add(listener);
      start();
      return () => {
        const current = listeners.get(sessionID);
        current?.delete(listener);
        if (current?.size === 0) listeners.delete(sessionID);
      };
    },
    whenConnected(timeoutMs = 10_000) {
      start();
      if (isConnected) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== done);
          reject(new Error(`engine event stream not connected within ${timeoutMs} ms`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        waiters.push(done);
      });
    },
    connected: () => isConnected,
    start,
    async stop() {
      stopped = true;
      stopping.abort();
      abort?.abort();
      if (watchdog) clearTimeout(watchdog);
      await running;
      running = null;
      isConnected = false;
      listeners.clear();
    },
  };
}

/**
 * Waits `ms`, or until `signal` (the hub's own, alive as long as the hub) aborts. The listener
 * goes when the wait ends: one left behind by each reconnect would pile up on that signal for
 * as long as the engine stays away (a listener and its timer per retry, every 30 s, for good).
 */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const wake = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    signal.addEventListener('abort', wake, { once: true });
  });
}
