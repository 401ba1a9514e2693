import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolRegistry } from '../../src/mcp/registry.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { defineTool, type ToolContext, type ToolDefinition } from '../../src/mcp/tool-types.js';
import { VERSION } from '../../src/version.js';
import { testConfig, testContext } from './tools/tool-context.js';

const signals: AbortSignal[] = [];
const wait = defineTool({
  name: 'wait',
  description: 'Waits until cancelled',
  inputSchema: z.object({}),
  handler: (_args, ctx) =>
    new Promise<string>((resolve) => {
      signals.push(ctx.signal);
      ctx.signal.addEventListener('abort', () => resolve('cancelled'), { once: true });
    }),
});
const hello = defineTool({
  name: 'hello',
  description: 'Greets',
  inputSchema: z.object({ name: z.string().describe('Who') }),
  handler: async ({ name }) => `hello ${name}`,
});

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** The server and an SDK client joined by the SDK's in-memory transport pair. */
async function connect() {
  const registry = createToolRegistry([hello, wait] as unknown as ToolDefinition[], (t) => t);
  const base = testContext(testConfig());
  const contexts: ToolContext[] = [];
  const server = createMcpServer(registry, (signal) => {
    const ctx = { ...base, signal };
    contexts.push(ctx);
    return ctx;
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  closers.push(() => client.close());
  return { client, contexts };
}

describe('createMcpServer', () => {
  it('introduces itself as steward with static tools and instructions', async () => {
    const { client } = await connect();
    expect(client.getServerVersion()).toEqual({ name: 'steward', version: VERSION });
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    expect(client.getInstructions()).toMatch(/^Steward tools: /);
  });

  it('lists the registry’s tools', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['hello', 'wait']);
    expect(tools[0]?.inputSchema).toMatchObject({ type: 'object', required: ['name'] });
  });

  it('calls a tool with a fresh context per call', async () => {
    const { client, contexts } = await connect();
    expect(await client.callTool({ name: 'hello', arguments: { name: 'Ana' } })).toEqual({
      content: [{ type: 'text', text: 'hello Ana' }],
    });
    await client.callTool({ name: 'hello', arguments: { name: 'Bo' } });
    expect(contexts).toHaveLength(2);
    expect(contexts[0]?.signal).not.toBe(contexts[1]?.signal);
  });

  it('answers bad calls with JSON-RPC errors, not isError results', async () => {
    const { client } = await connect();
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(client.callTool({ name: 'hello', arguments: { name: 1 } })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('passes the client’s cancellation to the running tool', async () => {
    const { client } = await connect();
    signals.length = 0;
    const controller = new AbortController();
    const call = client.callTool({ name: 'wait', arguments: {} }, undefined, {
      signal: controller.signal,
    });
    while (signals.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort('user stopped');
    await expect(call).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 20));
    expect(signals[0]?.aborted).toBe(true);
  });
});
