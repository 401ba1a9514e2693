import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';

/**
 * Synchronous host calls from a script thread. The evaluator is a synchronous loop, so a host
 * call that does I/O (`http.get`) cannot await: the thread posts the request on a MessagePort,
 * then sleeps in `Atomics.wait` on a shared flag; the worker's main thread performs the request,
 * posts the answer and wakes it. No busy wait, and every wait is bounded by the run's deadline.
 */

export interface HostRequest {
  op: string;
  args: unknown;
}

export type HostAnswer = { ok: true; value: unknown } | { ok: false; error: string };

/** What travels to the thread with the task (both transferable/shareable). */
export interface BridgeEnd {
  port: MessagePort;
  flag: SharedArrayBuffer;
}

export type HostHandler = (op: string, args: unknown) => Promise<unknown>;

/** Main-thread side: answers requests with `handler` until `close()`. */
export function openBridge(handler: HostHandler): { end: BridgeEnd; close(): void } {
  const { port1, port2 } = new MessageChannel();
  const flag = new SharedArrayBuffer(4);
  const cell = new Int32Array(flag);
  port1.on('message', (request: HostRequest) => {
    void handler(request.op, request.args).then(
      (value) => answer({ ok: true, value }),
      (err: unknown) =>
        answer({ ok: false, error: err instanceof Error ? err.message : String(err) }),
    );
  });
  function answer(message: HostAnswer): void {
    port1.postMessage(message);
    Atomics.store(cell, 0, 1);
    Atomics.notify(cell, 0);
  }
  return {
    end: { port: port2, flag },
    close() {
      port1.close();
    },
  };
}

export class HostCallTimeout extends Error {
  override name = 'HostCallTimeout';
}

/** Thread side: one blocking call; throws the host's error text, or HostCallTimeout. */
export function callHost(end: BridgeEnd, op: string, args: unknown, timeoutMs: number): unknown {
  const cell = new Int32Array(end.flag);
  Atomics.store(cell, 0, 0);
  end.port.postMessage({ op, args } satisfies HostRequest);
  const outcome = Atomics.wait(cell, 0, 0, Math.max(0, timeoutMs));
  const received = receiveMessageOnPort(end.port);
  if (!received) {
    if (outcome === 'timed-out') throw new HostCallTimeout(`${op} did not finish in time`);
    throw new Error(`${op}: no answer from the host`);
  }
  const message = received.message as HostAnswer;
  if (!message.ok) throw new Error(message.error);
  return message.value;
}

/** Blocks the calling thread for `ms` without spinning. */
export function sleepSync(ms: number): void {
  if (ms <= 0) return;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
