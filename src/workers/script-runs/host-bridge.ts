import { parentPort } from 'node:worker_threads';

/**
 * Synchronous host calls from a script thread. The evaluator is a synchronous loop, so a host
 * call that does I/O (`http.get`) cannot await: the thread posts the request to the main thread
 * (Piscina relays a thread's own messages as the pool's 'message' event) with a fresh shared
 * reply buffer, then sleeps in `Atomics.wait` on it; the main thread performs the request, writes
 * the answer into the buffer and wakes it. No busy wait, and every wait is bounded by the run's
 * deadline.
 *
 * Nothing is transferred per run: a MessagePort handed to a thread with each task leaks about
 * 3 KB of native memory per run in Node 20 (a worker grew by 150 MB over 50,000 runs), while a
 * SharedArrayBuffer per call is freed like any other.
 */

export type HostAnswer = { ok: true; value: unknown } | { ok: false; error: string };

export type HostHandler = (op: string, args: unknown) => Promise<unknown>;

/** What a task carries to its thread: the id its host calls are answered under. */
export interface BridgeEnd {
  run: number;
}

const HOST_CALL = 'stewardHostCall';

interface HostCallMessage {
  [HOST_CALL]: true;
  run: number;
  op: string;
  args: unknown;
  reply: SharedArrayBuffer;
}

/** State (int32: 0 waiting, 1 answered) and the answer's length (int32), then its JSON bytes. */
const HEADER_BYTES = 8;
const INITIAL_REPLY_BYTES = 64 * 1024;
/** Room for a response body as large as a run may read (`http_body_bytes`), JSON-escaped. */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

function isHostCall(message: unknown): message is HostCallMessage {
  return (
    typeof message === 'object' &&
    message !== null &&
    (message as Record<string, unknown>)[HOST_CALL] === true &&
    typeof (message as HostCallMessage).run === 'number' &&
    (message as HostCallMessage).reply instanceof SharedArrayBuffer
  );
}

function writeAnswer(reply: SharedArrayBuffer, answer: HostAnswer): void {
  let bytes = Buffer.from(JSON.stringify(answer), 'utf8');
  if (HEADER_BYTES + bytes.length > reply.maxByteLength) {
    const error = `answer of ${bytes.length} bytes is larger than a host call may return`;
    bytes = Buffer.from(JSON.stringify({ ok: false, error } satisfies HostAnswer), 'utf8');
  }
  if (reply.byteLength < HEADER_BYTES + bytes.length) reply.grow(HEADER_BYTES + bytes.length);
  new Uint8Array(reply, HEADER_BYTES, bytes.length).set(bytes);
  const cell = new Int32Array(reply, 0, 2);
  Atomics.store(cell, 1, bytes.length);
  Atomics.store(cell, 0, 1);
  Atomics.notify(cell, 0);
}

export interface HostRouter {
  /** Answers the host calls of one run with `handler` until `close()`. */
  open(handler: HostHandler): { end: BridgeEnd; close(): void };
  /** The pool's 'message' listener; false for a message that is not a host call. */
  receive(message: unknown): boolean;
}

/** Main-thread side: one per pool, routing each call to the handler of its run. */
export function createHostRouter(): HostRouter {
  const handlers = new Map<number, HostHandler>();
  let next = 1;
  return {
    open(handler) {
      const run = next++;
      handlers.set(run, handler);
      return { end: { run }, close: () => void handlers.delete(run) };
    },
    receive(message) {
      if (!isHostCall(message)) return false;
      const handler = handlers.get(message.run);
      if (handler === undefined) {
        writeAnswer(message.reply, { ok: false, error: 'the run has ended' });
        return true;
      }
      void handler(message.op, message.args).then(
        (value) => writeAnswer(message.reply, { ok: true, value }),
        (err: unknown) =>
          writeAnswer(message.reply, {
            ok: false,
            error: err instanceof Error ? err.message : String(err),
          }),
      );
      return true;
    },
  };
}

export class HostCallTimeout extends Error {
  override name = 'HostCallTimeout';
}

/** Thread side: one blocking call; throws the host's error text, or HostCallTimeout. */
export function callHost(end: BridgeEnd, op: string, args: unknown, timeoutMs: number): unknown {
  if (parentPort === null)
    throw new Error(`${op}: host calls are answered only in a script thread`);
  // Nothing is sent once the time is up: the host would do the work for nobody.
  if (timeoutMs <= 0) throw new HostCallTimeout(`${op} did not finish in time`);
  const reply = new SharedArrayBuffer(INITIAL_REPLY_BYTES, { maxByteLength: MAX_ANSWER_BYTES });
  const cell = new Int32Array(reply, 0, 2);
  parentPort.postMessage({
    [HOST_CALL]: true,
    run: end.run,
    op,
    args,
    reply,
  } satisfies HostCallMessage);
  const outcome = Atomics.wait(cell, 0, 0, Math.max(0, timeoutMs));
  if (Atomics.load(cell, 0) !== 1) {
    if (outcome === 'timed-out') throw new HostCallTimeout(`${op} did not finish in time`);
    throw new Error(`${op}: no answer from the host`);
  }
  const length = Atomics.load(cell, 1);
  const message = JSON.parse(
    Buffer.from(reply, HEADER_BYTES, length).toString('utf8'),
  ) as HostAnswer;
  if (!message.ok) throw new Error(message.error);
  return message.value;
}

/** Blocks the calling thread for `ms` without spinning. */
function sleepSync(ms: number): void {
  if (ms <= 0) return;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** How late the main thread may answer a sleep (a busy event loop) before the thread goes on. */
const SLEEP_ANSWER_GRACE_MS = 1000;

/**
 * Sleeps `ms` as a host call, so that the pool sees the run waiting and may start another on a
 * spare thread (`admission.ts`); outside a pool thread, in place.
 */
export function hostSleep(end: BridgeEnd, ms: number): void {
  if (ms <= 0) return;
  if (parentPort === null) return sleepSync(ms);
  try {
    callHost(end, 'sleep', { ms }, ms + SLEEP_ANSWER_GRACE_MS);
  } catch (err) {
    if (!(err instanceof HostCallTimeout)) throw err;
  }
}
