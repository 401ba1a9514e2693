import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import {
  callHost,
  createHostRouter,
  MAX_ANSWER_BYTES,
  hostSleep,
  type HostHandler,
} from '../../../src/workers/script-runs/host-bridge.js';

/** The compiled module, as a script thread loads it (threads need JavaScript: npm run build). */
const compiled = pathToFileURL(
  path.resolve(__dirname, '../../../dist/workers/script-runs/host-bridge.js'),
).href;

/**
 * Runs `calls` one after another from a real thread, answered by `handler` on this thread through
 * a router as the pool wires it (the thread's own messages); resolves with each call's value or
 * error (name and message). With `closed`, the run has ended before the calls arrive.
 */
async function fromThread(
  handler: HostHandler,
  calls: Array<{ op: string; args: unknown; timeoutMs: number }>,
  closed = false,
): Promise<Array<{ value?: unknown; error?: { name: string; message: string } }>> {
  const router = createHostRouter();
  const bridge = router.open(handler);
  if (closed) bridge.close();
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(workerData.module).then(({ callHost }) => {
      const out = [];
      for (const c of workerData.calls) {
        try {
          out.push({ value: callHost(workerData.end, c.op, c.args, c.timeoutMs) });
        } catch (err) {
          out.push({ error: { name: err.name, message: err.message } });
        }
      }
      parentPort.postMessage(out);
    });
  `;
  const worker = new Worker(code, {
    eval: true,
    workerData: { module: compiled, end: bridge.end, calls },
  });
  try {
    return await new Promise((resolve, reject) => {
      worker.on('message', (message) => {
        if (!router.receive(message)) resolve(message);
      });
      worker.once('error', reject);
    });
  } finally {
    await worker.terminate();
    bridge.close();
  }
}

describe('host bridge', () => {
  it("answers a thread's blocking call with the handler's value, in order", async () => {
    const seen: Array<[string, unknown]> = [];
    const results = await fromThread(
      async (op, args) => {
        seen.push([op, args]);
        await new Promise((r) => setTimeout(r, 20));
        return { echoed: args };
      },
      [
        { op: 'http', args: { n: 1 }, timeoutMs: 5000 },
        { op: 'http', args: { n: 2 }, timeoutMs: 5000 },
      ],
    );
    expect(results).toEqual([{ value: { echoed: { n: 1 } } }, { value: { echoed: { n: 2 } } }]);
    expect(seen).toEqual([
      ['http', { n: 1 }],
      ['http', { n: 2 }],
    ]);
  });

  it("throws the handler's error text in the thread", async () => {
    const results = await fromThread(async () => {
      throw new Error('host refused: 10.0.0.1 is not allowed');
    }, [{ op: 'http', args: {}, timeoutMs: 5000 }]);
    expect(results).toEqual([
      { error: { name: 'Error', message: 'host refused: 10.0.0.1 is not allowed' } },
    ]);
  });

  it('gives up at the timeout with HostCallTimeout when the host does not answer', async () => {
    const started = Date.now();
    const results = await fromThread(
      () => new Promise(() => {}),
      [{ op: 'http', args: {}, timeoutMs: 200 }],
    );
    expect(results).toEqual([
      { error: { name: 'HostCallTimeout', message: 'http did not finish in time' } },
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
  });

  it('a call whose timeout has already passed does not wait', async () => {
    const started = Date.now();
    const results = await fromThread(async () => 'late', [{ op: 'http', args: {}, timeoutMs: -5 }]);
    expect(results).toEqual([
      { error: { name: 'HostCallTimeout', message: 'http did not finish in time' } },
    ]);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('carries answers far larger than the first reply buffer, and refuses oversized ones', async () => {
    const big = 'x'.repeat(3 * 1024 * 1024);
    const results = await fromThread(
      async (_op, args) => ((args as { n: number }).n === 1 ? big : 'y'.repeat(MAX_ANSWER_BYTES)),
      [
        { op: 'http', args: { n: 1 }, timeoutMs: 10_000 },
        { op: 'http', args: { n: 2 }, timeoutMs: 10_000 },
      ],
    );
    expect(results[0]?.value).toBe(big);
    expect(results[1]?.error?.message).toMatch(
      /^answer of \d+ bytes is larger than a host call may return$/,
    );
  });

  it('refuses the calls of a run that has ended, and outside a script thread', async () => {
    const results = await fromThread(
      async () => 'never',
      [{ op: 'http', args: {}, timeoutMs: 5000 }],
      true,
    );
    expect(results).toEqual([{ error: { name: 'Error', message: 'the run has ended' } }]);
    expect(() => callHost({ run: 1 }, 'http', {}, 10)).toThrow(
      'http: host calls are answered only in a script thread',
    );
  });

  it('hostSleep outside a script thread blocks in place, and not at all for zero or less', () => {
    let started = Date.now();
    hostSleep({ run: 1 }, 60);
    expect(Date.now() - started).toBeGreaterThanOrEqual(59);
    started = Date.now();
    hostSleep({ run: 1 }, 0);
    hostSleep({ run: 1 }, -10);
    expect(Date.now() - started).toBeLessThan(20);
  });
});
