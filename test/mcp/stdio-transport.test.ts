import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createToolRateLimiter, type ToolRateLimiter } from '../../src/mcp/rate-limit.js';
import { GuardedStdioTransport } from '../../src/mcp/stdio-transport.js';

const generous = createToolRateLimiter({ per_second: 1000, burst: 2000 });

/** A transport over in-memory streams, recording what reaches the SDK and what is written back. */
async function open(limiter: ToolRateLimiter = generous) {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new GuardedStdioTransport(input, output, limiter);
  const received: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  let closed = 0;
  transport.onmessage = (m) => received.push(m);
  transport.onerror = (e) => errors.push(e);
  transport.onclose = () => closed++;
  await transport.start();
  let written = '';
  output.setEncoding('utf8');
  output.on('data', (chunk: string) => (written += chunk));
  const settle = () => new Promise((r) => setTimeout(r, 20));
  const replies = () =>
    written
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: unknown; error?: { code: number; message: string } });
  return { input, transport, received, errors, replies, settle, closed: () => closed };
}

const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });

describe('GuardedStdioTransport', () => {
  it('reads newline-delimited messages however the chunks fall', async () => {
    const t = await open();
    const text = `${ping(1)}\n${ping(2)}\r\n\n   \n${ping(3)}\n`;
    for (const piece of [text.slice(0, 5), text.slice(5, 40), text.slice(40)]) t.input.write(piece);
    await t.settle();
    expect(t.received.map((m) => (m as { id: number }).id)).toEqual([1, 2, 3]);
    expect(t.replies()).toEqual([]);
  });

  it('decodes a UTF-8 character split between two chunks', async () => {
    const t = await open();
    const bytes = Buffer.from(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'note', params: { t: 'é€' } })}\n`,
    );
    const cut = bytes.indexOf(0xe2) + 1; // inside the three bytes of €
    t.input.write(bytes.subarray(0, cut));
    t.input.write(bytes.subarray(cut));
    await t.settle();
    expect(t.received).toEqual([{ jsonrpc: '2.0', method: 'note', params: { t: 'é€' } }]);
  });

  it('answers unparsable lines with -32700 and keeps going', async () => {
    const t = await open();
    t.input.write(`{"jsonrpc":"2.0","id":1,\n${ping(2)}\n`);
    await t.settle();
    expect(t.replies()).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: invalid JSON' } },
    ]);
    expect(t.received).toHaveLength(1);
  });

  it('answers what the guard refuses without passing it on', async () => {
    const t = await open();
    t.input.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: {} })}\n`,
    );
    await t.settle();
    expect(t.replies()).toMatchObject([{ id: 5, error: { code: -32602 } }]);
    expect(t.received).toEqual([]);
  });

  it('refuses a line that grows past 4 MiB without a newline, then recovers', async () => {
    const t = await open();
    t.input.write('x'.repeat(4 * 1024 * 1024 + 1));
    await t.settle();
    expect(t.replies()).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: message too large' },
      },
    ]);
    t.input.write(`\n${ping(8)}\n`);
    await t.settle();
    expect(t.received.map((m) => (m as { id: number }).id)).toEqual([8]);
  });

  it('answers requests past the rate limit with -32000 and their id, but never notifications', async () => {
    const t = await open(createToolRateLimiter({ per_second: 1, burst: 2 }));
    const note = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress' });
    t.input.write([ping(1), ping(2), ping(3), note, note].join('\n') + '\n');
    await t.settle();
    expect(t.replies()).toEqual([
      {
        jsonrpc: '2.0',
        id: 3,
        error: {
          code: -32000,
          message: 'Rate limit exceeded: at most 1 requests per second (burst 2)',
        },
      },
    ]);
    expect(t.received.map((m) => (m as { id?: number }).id ?? 'note')).toEqual([
      1,
      2,
      'note',
      'note',
    ]);
  });

  it('keeps the order of lines even when the limiter answers out of order', async () => {
    // The first request waits longer for its verdict than the second.
    let calls = 0;
    const slowFirst: ToolRateLimiter = {
      message: 'limited',
      allow: () => new Promise((r) => setTimeout(() => r(true), ++calls === 1 ? 30 : 0)),
    };
    const t = await open(slowFirst);
    t.input.write(`${ping(1)}\n${ping(2)}\n`);
    await new Promise((r) => setTimeout(r, 80));
    expect(t.received.map((m) => (m as { id: number }).id)).toEqual([1, 2]);
  });

  it('reports a failing limiter and carries on with the next line', async () => {
    let calls = 0;
    const flaky: ToolRateLimiter = {
      message: 'limited',
      allow: async () => {
        if (++calls === 1) throw new Error('redis went away');
        return true;
      },
    };
    const t = await open(flaky);
    t.input.write(`${ping(1)}\n${ping(2)}\n`);
    await t.settle();
    expect(t.errors.map((e) => e.message)).toEqual(['redis went away']);
    expect(t.received.map((m) => (m as { id: number }).id)).toEqual([2]);
  });

  it('closes once when the input ends, after the lines already read', async () => {
    const t = await open();
    t.input.end(`${ping(1)}\n`);
    await t.settle();
    expect(t.received).toHaveLength(1);
    expect(t.closed()).toBe(1);
    await t.transport.close();
    expect(t.closed()).toBe(1);
  });

  it('writes nothing and reads nothing once closed', async () => {
    const t = await open();
    await t.transport.close();
    await t.transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    t.input.write(`${ping(1)}\n`);
    await t.settle();
    expect(t.replies()).toEqual([]);
    expect(t.received).toEqual([]);
  });
});
