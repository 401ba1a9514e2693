import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { inputJsonSchema, type ToolContext, type ToolDefinition } from './tool-types.js';
import { RpcError, rpcCodes } from '../errors/rpc-error.js';
import { toMcp } from '../errors/to-mcp.js';
import type { AuditOutcome } from '../runtime/audit-entry.js';
import type { AuditLog } from '../runtime/audit-log.js';

export interface ToolResult {
  content: Array<{ type: 'text'; text: string }>;
  isError?: boolean;
}

export interface ToolRegistry {
  list(): Tool[];
  /** Runs a tool; unknown names and bad arguments throw RpcError(-32602). */
  call(name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
}

/** Longest text of a call's arguments kept in its audit entry (after redaction). */
export const auditedArgsChars = 200;

/** The argument a call acts on, for the audit entry's target: a script, path, URL, chat… */
function targetOf(args: Record<string, unknown>): string {
  for (const key of ['name', 'path', 'url', 'channel_id', 'query', 'repo']) {
    const value = args[key];
    if (typeof value === 'string') return value.slice(0, 200);
  }
  return '';
}

/**
 * The tools one server exposes. The JSON Schemas are computed once: tools/list is answered on
 * every engine start and must not rebuild them. Every call the AI makes is recorded in `trail`
 * (tool, target, outcome, its arguments redacted and cut), whatever its outcome.
 */
export function createToolRegistry(
  tools: ToolDefinition[],
  redact: (text: string) => string,
  trail?: Pick<AuditLog, 'record'>,
): ToolRegistry {
  const record = async (
    name: string,
    args: Record<string, unknown>,
    outcome: AuditOutcome,
    error?: string,
  ) => {
    if (!trail) return;
    const text = redact(JSON.stringify(args) ?? '');
    await trail.record({
      actor: 'ai',
      channel: 'mcp',
      action: `tool.${name}`,
      target: targetOf(args),
      outcome,
      details: {
        args: text.length > auditedArgsChars ? `${text.slice(0, auditedArgsChars)}…` : text,
        ...(error !== undefined ? { error: error.slice(0, 200) } : {}),
      },
    });
  };
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
        await record(name, args, 'refused', 'unknown tool');
        throw new RpcError(rpcCodes.invalidParams, `Invalid params: unknown tool "${name}"`);
      }
      const parsed = tool.inputSchema.safeParse(args);
      if (!parsed.success) {
        await record(name, args, 'refused', 'invalid arguments');
        throw new RpcError(
          rpcCodes.invalidParams,
          `Invalid params for ${name}: ${parsed.error.issues
            .map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`)
            .join('; ')}`,
        );
      }
      try {
        const text = await tool.handler(parsed.data as z.infer<typeof tool.inputSchema>, ctx);
        await record(name, args, 'ok');
        return { content: [{ type: 'text', text: redact(text) }] };
      } catch (err) {
        const failure = toMcp(err, name);
        await record(
          name,
          args,
          failure.kind === 'result' ? 'refused' : 'failed',
          failure.kind === 'result' ? redact(failure.text) : 'internal error',
        );
        if (failure.kind === 'result') {
          return { content: [{ type: 'text', text: redact(failure.text) }], isError: true };
        }
        if (failure.internal) ctx.logger.error({ err, tool: name }, 'tool failed');
        throw failure.error;
      }
    },
  };
}
