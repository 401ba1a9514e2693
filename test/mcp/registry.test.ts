import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../src/log/logger.js';
import { createToolRegistry } from '../../src/mcp/registry.js';
import { RpcError } from '../../src/errors/rpc-error.js';
import { ToolError } from '../../src/errors/tool-error.js';
import { defineTool, type ToolContext, type ToolDefinition } from '../../src/mcp/tool-types.js';
import { testConfig, testContext } from './tools/tool-context.js';

const SECRET = 'sk-live-5f1d9c2e8a7b';
const redact = (text: string) => text.replaceAll(SECRET, '[REDACTED:KEY]');

const seen: unknown[] = [];
const echo = defineTool({
  name: 'echo',
  description: 'Echoes',
  inputSchema: z.object({
    text: z.string().describe('Text'),
    times: z.number().int().positive().default(1).describe('Repeats'),
    nested: z.object({ n: z.number() }).optional().describe('Nested'),
  }),
  async handler(args, ctx) {
    seen.push({ args, ctx });
    switch (args.text) {
      case 'tool-error':
        throw new ToolError(`could not use ${SECRET}`);
      case 'crash':
        throw new Error(`database password is ${SECRET}`);
      default:
        return `${args.text.repeat(args.times)} ${SECRET}`;
    }
  },
});

/** A context whose logger lines are captured. */
function context(): { ctx: ToolContext; logged: Array<Record<string, unknown>> } {
  const logged: Array<Record<string, unknown>> = [];
  const logger = createLogger('info', {
    hooks: {
      streamWrite(line) {
        logged.push(JSON.parse(line) as Record<string, unknown>);
        return '';
      },
    },
  });
  return { ctx: { ...testContext(testConfig()), logger }, logged };
}

async function rejection(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  return err as { code: number; message: string };
}

describe('createToolRegistry', () => {
  const registry = createToolRegistry([echo as unknown as ToolDefinition], redact);

  it('lists each tool with its JSON Schema, built once', () => {
    const listed = registry.list();
    expect(listed).toEqual([
      {
        name: 'echo',
        description: 'Echoes',
        inputSchema: expect.objectContaining({ type: 'object' }),
      },
    ]);
    expect(registry.list()).toBe(listed);
  });

  it('hands the handler validated arguments with defaults applied and extras dropped', async () => {
    const { ctx } = context();
    seen.length = 0;
    await registry.call('echo', { text: 'a', extra: 'ignored' }, ctx);
    expect(seen).toEqual([{ args: { text: 'a', times: 1 }, ctx }]);
  });

  it('redacts the result text', async () => {
    const { ctx } = context();
    expect(await registry.call('echo', { text: 'ab', times: 2 }, ctx)).toEqual({
      content: [{ type: 'text', text: 'abab [REDACTED:KEY]' }],
    });
  });

  it('turns a ToolError into an isError result, redacted too', async () => {
    const { ctx } = context();
    expect(await registry.call('echo', { text: 'tool-error' }, ctx)).toEqual({
      content: [{ type: 'text', text: 'could not use [REDACTED:KEY]' }],
      isError: true,
    });
  });

  it('answers an unknown tool with -32602', async () => {
    const { ctx } = context();
    const err = await rejection(registry.call('nope', {}, ctx));
    expect([err.code, err.message]).toEqual([-32602, 'Invalid params: unknown tool "nope"']);
  });

  it('answers bad arguments with -32602 naming each bad field', async () => {
    const { ctx } = context();
    const err = await rejection(registry.call('echo', { times: 0, nested: { n: 'x' } }, ctx));
    expect(err.code).toBe(-32602);
    expect(err.message).toMatch(/^Invalid params for echo: /);
    for (const field of ['text: ', 'times: ', 'nested.n: ']) expect(err.message).toContain(field);
  });

  it('hides an unexpected failure behind -32603 and logs it', async () => {
    const { ctx, logged } = context();
    const err = await rejection(registry.call('echo', { text: 'crash' }, ctx));
    expect([err.code, err.message]).toEqual([-32603, 'Internal error while running echo']);
    expect(logged).toMatchObject([{ msg: 'tool failed', tool: 'echo', level: 50 }]);
  });

  it('passes a JSON-RPC error thrown by a handler through as it is', async () => {
    const rpcTool = defineTool({
      name: 'rpc',
      description: 'Throws a protocol error',
      inputSchema: z.object({}),
      handler: async () => {
        throw new RpcError(-32601, 'Method not found: nothing here');
      },
    });
    const { ctx } = context();
    const err = await rejection(
      createToolRegistry([rpcTool as unknown as ToolDefinition], redact).call('rpc', {}, ctx),
    );
    expect([err.code, err.message]).toEqual([-32601, 'Method not found: nothing here']);
  });
});
