import { createEgress, type Egress } from '../net/egress.js';
import type { Context } from '../runtime/context.js';
import type { Services } from '../runtime/services.js';
import { createToolRegistry, type ToolRegistry } from './registry.js';
import type { ToolContext } from './tool-types.js';
import { builtinTools } from './tools/index.js';
import { scriptTools, type ScriptToolDeps } from './tools/script-tools.js';

export interface Toolset {
  registry: ToolRegistry;
  makeContext(signal: AbortSignal): ToolContext;
}

/** The configured tools of this process, shared by the stdio and HTTP transports. */
export interface ToolsetDeps {
  redact(text: string): string;
  /** Absent in processes without the script services (the scripts tools are then not listed). */
  scripts?: Omit<ScriptToolDeps, 'allowlist'>;
}

export function createToolset(ctx: Context, deps: ToolsetDeps): Toolset {
  const { config } = ctx;
  const egress: Egress = createEgress({
    allow: config.egress.allow,
    timeoutMs: config.egress.timeout,
    maxBodyBytes: config.egress.max_body_bytes,
    maxRedirects: config.egress.max_redirects,
  });
  const tools = [
    ...builtinTools(config),
    ...(deps.scripts ? scriptTools({ ...deps.scripts, allowlist: config.scripts.allowlist }) : []),
  ];
  const registry = createToolRegistry(tools, (text) => deps.redact(text));
  return {
    registry,
    makeContext: (signal) => ({ config, logger: ctx.log, egress, signal }),
  };
}

/** What the toolset needs of a process's services. */
export function toolsetDeps(services: Services): ToolsetDeps {
  return {
    redact: (text) => services.redact(text),
    scripts: { scripts: services.scripts, runner: services.scriptRunner },
  };
}
