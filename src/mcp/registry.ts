import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { inputJsonSchema, type ToolContext, type ToolDefinition } from './tool-types.js';
import { RpcError, rpcCodes } from '../errors/rpc-error.js';
import { toMcp } from '../errors/to-mcp.js';

export interface ToolResult {
  content: Array<{ type: 'text'; text: string }>;
  isError?: boolean;
}

export interface ToolRegistry {
  list(): Tool[];
  /** Runs a tool; unknown names and bad arguments throw RpcError(-32602). */
  call(name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
}

/**
 * The tools one server exposes. The JSON Schemas are computed once: tools/list is answered on
 * every engine start and must not rebuild them.
 */
export function createToolRegistry(
  tools: ToolDefinition[],
  redact: (text: string) => string,
): ToolRegistry {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const listed: Tool[] = tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: inputJsonSchema(t) as Tool['inputSchema'],
  }));
  return {
    list: () => listed,
    async call(name, args, ctx) {
      const tool = byName.get(name);
      if (!tool) {
        throw new RpcError(rpcCodes.invalidParams, `Invalid params: unknown tool "${name}"`);
      }
      const parsed = tool.inputSchema.safeParse(args);
      if (!parsed.success) {
        throw new RpcError(
          rpcCodes.invalidParams,
          `Invalid params for ${name}: ${parsed.error.issues
            .map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`)
            .join('; ')}`,
        );
      }
      try {
        const text = await tool.handler(parsed.data as z.infer<typeof tool.inputSchema>, ctx);
        return { content: [{ type: 'text', text: redact(text) }] };
      } catch (err) {
        const failure = toMcp(err, name);
        if (failure.kind === 'result') {
          return { content: [{ type: 'text', text: redact(failure.text) }], isError: true };
        }
        if (failure.internal) ctx.logger.error({ err, tool: name }, 'tool failed');
        throw failure.error;
      }
    },
  };
}
