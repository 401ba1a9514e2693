import type { Egress } from '../net/egress.js';
import type { Context } from '../runtime/context.js';
import { createToolRegistry, type ToolRegistry } from './registry.js';
import type { ToolContext } from './tool-types.js';
import type { ChatOutbox } from '../chat/chat-outbox.js';
import { builtinTools } from './tools/index.js';
import { chatTools } from './tools/chat-tools.js';
import { scriptTools, type ScriptToolDeps } from './tools/script-tools.js';
import type { AuditLog } from '../runtime/audit-log.js';

export interface Toolset {
  registry: ToolRegistry;
  makeContext(signal: AbortSignal): ToolContext;
}

/** The configured tools of this process, shared by the stdio and HTTP transports. */
export interface ToolsetDeps {
  redact(text: string): string;
  /** The process's egress client (one per process, shared with script runs and webhooks). */
  egress: Egress;
  /** Absent in processes without the script services (the scripts tools are then not listed). */
  scripts?: Omit<ScriptToolDeps, 'allowlist'>;
  /** Outbound chat (`chat_send`), listed when a chat provider is configured. */
  chat?: Pick<ChatOutbox, 'configured' | 'send'>;
  /** Every tool call is recorded here. */
  trail: Pick<AuditLog, 'record'>;
}

export function createToolset(ctx: Pick<Context, 'config' | 'log'>, deps: ToolsetDeps): Toolset {
  const { config } = ctx;
  const { egress } = deps;
  const tools = [
    ...builtinTools(config),
    ...(deps.scripts ? scriptTools({ ...deps.scripts, allowlist: config.scripts.allowlist }) : []),
    ...(deps.chat ? chatTools(deps.chat) : []),
  ];
  const registry = createToolRegistry(tools, (text) => deps.redact(text), deps.trail);
  const scripts = deps.scripts?.scripts;
  const scriptFiles = scripts && {
    written: (name: string, source: string) => scripts.noteToolWrite(name, source),
  };
  return {
    registry,
    makeContext: (signal) => ({
      config,
      logger: ctx.log,
      egress,
      signal,
      ...(scriptFiles ? { scriptFiles } : {}),
    }),
  };
}
