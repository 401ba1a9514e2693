import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../version.js';
import type { ToolRegistry } from './registry.js';
import type { ToolContext } from './tool-types.js';

/**
 * The low-level SDK Server: unlike McpServer it lets a handler answer a JSON-RPC error (-32602
 * for unknown tools and bad arguments) instead of turning every throw into an isError result.
 */
export function createMcpServer(
  registry: ToolRegistry,
  makeContext: (signal: AbortSignal) => ToolContext,
): Server {
  const server = new Server(
    { name: 'steward', version: VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        'Steward tools: workspace and memory files, the Obsidian vault, calendar, GitHub issues, web fetch, and administrator-approved Starlark scripts.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: registry.list() }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    return (await registry.call(name, args ?? {}, makeContext(extra.signal))) as CallToolResult;
  });
  return server;
}
