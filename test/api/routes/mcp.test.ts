import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcpHttpRoutes } from '../../../src/api/routes/mcp.js';
import { createLogger } from '../../../src/log/logger.js';
import { createToolRateLimiter } from '../../../src/mcp/rate-limit.js';
import { createToolRegistry } from '../../../src/mcp/registry.js';
import { defineTool, type ToolContext } from '../../../src/mcp/tool-types.js';

const TOKEN = 'test-token-0123456789abcdef';
const echo = defineTool({
  name: 'echo',
  description: 'Echoes its text',
  inputSchema: z.object({ text: z.string().describe('what to echo') }),
  handler: async ({ text }) => `echo: ${text} SECRETVALUE`,
});

async function build(
  limits = { per_second: 1000, burst: 2000 },
  token: string | undefined = TOKEN,
): Promise<FastifyInstance> {
  const app = Fastify();
  const logger = createLogger('silent');
  await app.register(mcpHttpRoutes, {
    mcp: { enabled: true, token, allowed_hosts: ['steward.internal'], allowed_origins: [] },
    toolset: async () => ({
      registry: createToolRegistry([echo], (t) => t.replaceAll('SECRETVALUE', '[REDACTED:S]')),
      makeContext: (signal) => ({ logger, signal }) as unknown as ToolContext,
    }),
    limiter: createToolRateLimiter(limits),
    // Refused tokens are counted on Redis; test/api/routes/mcp-auth-limit.test.ts checks that.
    failures: { limit: 1000, consume: async () => unlimited },
  });
  return app;
}

const unlimited = { allowed: true, limit: 1000, remaining: 999, resetAt: 0, retryAfter: 1 };

const headers = (extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${TOKEN}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  ...extra,
});

describe('MCP over Streamable HTTP', () => {
  let app: FastifyInstance;
  let url: string;
  beforeAll(async () => {
    app = await build();
    url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/mcp`;
  });
  afterAll(() => app.close());

  it('serves the SDK client: initialize, list, call', async () => {
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo']);
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(result.content).toEqual([{ type: 'text', text: 'echo: hi [REDACTED:S]' }]);
    await client.close();
  });

  it('refuses a missing or wrong token with 401', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const none = await fetch(url, {
      method: 'POST',
      headers: { ...headers(), authorization: '' },
      body,
    });
    expect(none.status).toBe(401);
    const wrong = await fetch(url, {
      method: 'POST',
      headers: headers({ authorization: 'Bearer nope-nope-nope-nope' }),
      body,
    });
    expect(wrong.status).toBe(401);
  });

  it('refuses foreign Host and Origin headers (DNS rebinding)', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const host = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: headers({ host: 'evil.example' }),
      payload: body,
    });
    expect(host.statusCode).toBe(403);
    const allowed = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: headers({ host: 'steward.internal:8080' }),
      payload: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'x', version: '1' },
        },
      }),
    });
    expect(allowed.statusCode).toBe(200);
    const origin = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: headers({ host: 'localhost', origin: 'https://evil.example' }),
      payload: body,
    });
    expect(origin.statusCode).toBe(403);
  });

  it('refuses a foreign Host or Origin as an invalid request, not as a rate limit', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const foreign: Record<string, string>[] = [
      { host: 'evil.example' },
      { host: 'localhost', origin: 'https://evil.example' },
    ];
    for (const extra of foreign) {
      const res = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: headers(extra),
        payload: body,
      });
      expect(res.statusCode).toBe(403);
      // -32000 is the rate limit's code and nothing else's (spec, tool server errors).
      expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    }
  });

  it('answers the spec codes for malformed input', async () => {
    const post = (payload: string) =>
      app.inject({ method: 'POST', url: '/mcp', headers: headers({ host: 'localhost' }), payload });
    expect((await post('{nope')).json()).toMatchObject({ id: null, error: { code: -32700 } });
    expect((await post('{"id":1,"method":"ping"}')).json().error.code).toBe(-32600);
    const noName = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: {} }),
    );
    expect(noName.json()).toMatchObject({ id: 3, error: { code: -32602 } });
  });

  it('-32000 with 429 past the rate limit', async () => {
    const limited = await build({ per_second: 2, burst: 3 });
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await limited.inject({
        method: 'POST',
        url: '/mcp',
        headers: headers({ host: 'localhost' }),
        payload: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'ping' }),
      });
      codes.push(res.statusCode);
      if (res.statusCode === 429) expect(res.json().error.code).toBe(-32000);
    }
    expect(codes.filter((c) => c === 429).length).toBe(2);
    await limited.close();
  });

  it('answers GET and DELETE 405 (stateless: no stream, no sessions), still behind the guard', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await app.inject({
        method,
        url: '/mcp',
        headers: headers({ host: 'localhost' }),
      });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      const anonymous = await app.inject({ method, url: '/mcp', headers: { host: 'localhost' } });
      expect(anonymous.statusCode).toBe(401);
    }
  });

  it('asks for a bearer token in WWW-Authenticate, case-insensitively on the scheme', async () => {
    const payload = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const none = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { host: 'localhost', 'content-type': 'application/json' },
      payload,
    });
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer');
    expect(none.json()).toEqual({
      error: 'unauthorized',
      message: 'a valid bearer token (mcp.http.token) is required',
    });
    const lower = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: headers({ host: 'localhost', authorization: `bearer ${TOKEN}` }),
      payload,
    });
    expect(lower.statusCode).toBe(200);
  });

  it('accepts a loopback Origin without listing it', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: headers({ host: 'localhost', origin: 'http://127.0.0.1:5173' }),
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.statusCode).toBe(200);
  });

  it('refuses every request when no token is configured', async () => {
    const open = await build(undefined, undefined);
    for (const authorization of ['', 'Bearer ', 'Bearer undefined']) {
      const res = await open.inject({
        method: 'POST',
        url: '/mcp',
        headers: headers({ host: 'localhost', authorization }),
        payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(res.statusCode, authorization).toBe(401);
    }
    await open.close();
  });
});
