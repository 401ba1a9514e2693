import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../src/log/logger.js';
import { createToolRateLimiter } from '../../src/mcp/rate-limit.js';
import { createToolRegistry } from '../../src/mcp/registry.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { GuardedStdioTransport } from '../../src/mcp/stdio-transport.js';
import { ToolError } from '../../src/errors/tool-error.js';
import { defineTool, type ToolContext } from '../../src/mcp/tool-types.js';

/** The protocol layer over in-memory streams: exact JSON-RPC codes for every error case. */
const echo = defineTool({
  name: 'echo',
  description: 'Echoes its text',
  inputSchema: z.object({ text: z.string().describe('what to echo') }),
  async handler({ text }) {
    if (text === 'fail') throw new ToolError('it failed on purpose');
    if (text === 'crash') throw new Error('unexpected bug with internal detail');
    return `echo: ${text} SECRETVALUE`;
  },
});

class Harness {
  readonly input = new PassThrough();
  readonly output = new PassThrough();
  private lines: string[] = [];
  private waiters: Array<() => void> = [];
  constructor(perSecond = 1000, burst = 2000) {
    this.output.setEncoding('utf8');
    let buf = '';
    this.output.on('data', (chunk: string) => {
      buf += chunk;
      let i: number;
      while ((i = buf.indexOf('\n')) !== -1) {
        this.lines.push(buf.slice(0, i));
        buf = buf.slice(i + 1);
        this.waiters.shift()?.();
      }
    });
    const registry = createToolRegistry([echo], (t) => t.replaceAll('SECRETVALUE', '[REDACTED:S]'));
    const logger = createLogger('silent');
    const server = createMcpServer(
      registry,
      (signal) => ({ logger, signal }) as unknown as ToolContext,
    );
    void server.connect(
      new GuardedStdioTransport(
        this.input,
        this.output,
        createToolRateLimiter({ per_second: perSecond, burst }),
      ),
    );
  }
  send(line: string) {
    this.input.write(`${line}\n`);
  }
  async next(): Promise<any> {
    while (this.lines.length === 0) await new Promise<void>((r) => this.waiters.push(r));
    return JSON.parse(this.lines.shift() as string);
  }
  async request(id: number, method: string, params?: unknown): Promise<any> {
    this.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }));
    return this.next();
  }
}

describe('MCP protocol over stdio', () => {
  let h: Harness;
  beforeAll(async () => {
    h = new Harness();
    const init = await h.request(1, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    });
    expect(init.result.protocolVersion).toBe('2025-06-18');
    expect(init.result.capabilities.tools).toBeDefined();
    h.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  });
  afterAll(() => h.input.end());

  it('negotiates the latest version when the client asks for an unknown one', async () => {
    const other = new Harness();
    const init = await other.request(1, 'initialize', {
      protocolVersion: '1999-01-01',
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    });
    expect(init.result.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(init.result.protocolVersion).not.toBe('1999-01-01');
  });

  it('answers ping', async () => {
    expect(await h.request(2, 'ping')).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('lists tools with their input schema', async () => {
    const res = await h.request(3, 'tools/list');
    expect(res.result.tools).toEqual([
      {
        name: 'echo',
        description: 'Echoes its text',
        inputSchema: expect.objectContaining({
          type: 'object',
          properties: { text: { type: 'string', description: 'what to echo' } },
          required: ['text'],
        }),
      },
    ]);
  });

  it('calls a tool and redacts its result', async () => {
    const res = await h.request(4, 'tools/call', { name: 'echo', arguments: { text: 'hi' } });
    expect(res.result).toEqual({ content: [{ type: 'text', text: 'echo: hi [REDACTED:S]' }] });
  });

  it('returns tool failures as isError results', async () => {
    const res = await h.request(5, 'tools/call', { name: 'echo', arguments: { text: 'fail' } });
    expect(res.result).toEqual({
      content: [{ type: 'text', text: 'it failed on purpose' }],
      isError: true,
    });
  });

  it('-32700 with id null for malformed JSON', async () => {
    h.send('{"jsonrpc": "2.0", "id": 6, "method": ');
    expect(await h.next()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.any(String) },
    });
  });

  it('-32600 for invalid request objects', async () => {
    h.send('{"id": 7, "method": "ping"}');
    expect((await h.next()).error.code).toBe(-32600);
    h.send('{"jsonrpc": "2.0", "id": 8}');
    expect(await h.next()).toMatchObject({ id: 8, error: { code: -32600 } });
    h.send('[1, 2]');
    expect((await h.next()).error.code).toBe(-32600);
    h.send('"text"');
    expect((await h.next()).error.code).toBe(-32600);
  });

  it('-32601 for unknown methods', async () => {
    expect((await h.request(9, 'tools/destroy')).error.code).toBe(-32601);
  });

  it('-32602 for bad params: no name, unknown tool, arguments failing the schema', async () => {
    expect((await h.request(10, 'tools/call', { arguments: {} })).error.code).toBe(-32602);
    expect(
      (await h.request(11, 'tools/call', { name: 'nope', arguments: {} })).error,
    ).toMatchObject({
      code: -32602,
      message: expect.stringContaining('unknown tool'),
    });
    const bad = await h.request(12, 'tools/call', { name: 'echo', arguments: { text: 5 } });
    expect(bad.error).toMatchObject({ code: -32602, message: expect.stringContaining('text') });
    expect((await h.request(13, 'tools/call', { name: 'echo', arguments: 'x' })).error.code).toBe(
      -32602,
    );
  });

  it('-32603 for internal failures, without internal details', async () => {
    const res = await h.request(14, 'tools/call', { name: 'echo', arguments: { text: 'crash' } });
    expect(res.error.code).toBe(-32603);
    expect(res.error.message).not.toMatch(/internal detail/);
  });

  it('-32000 past 10 per second with a burst of 20', async () => {
    const limited = new Harness(10, 20);
    const results: any[] = [];
    for (let i = 0; i < 25; i++)
      limited.send(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'ping' }));
    for (let i = 0; i < 25; i++) results.push(await limited.next());
    const refused = results.filter((r) => r.error?.code === -32000);
    expect(results.filter((r) => r.result).length).toBe(20);
    expect(refused.length).toBe(5);
    expect(refused[0].error.message).toMatch(/rate limit/i);
  });
});
