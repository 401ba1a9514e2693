import { createEgress, type Egress } from '../net/egress.js';
import type { Context } from '../runtime/context.js';
import type { Services } from '../runtime/services.js';
import { createToolRegistry, type ToolRegistry } from './registry.js';
import type { ToolContext } from './tool-types.js';
import { builtinTools } from './tools/index.js';
import { scriptTools } from './tools/script-tools.js';

export interface Toolset {
  registry: ToolRegistry;
  makeContext(signal: AbortSignal): ToolContext;
}

/** The configured tools of this process, shared by the stdio and HTTP transports. */
export function createToolset(ctx: Context, services: Services): Toolset {
  const { config } = ctx;
  const egress: Egress = createEgress({
    allow: config.egress.allow,
    timeoutMs: config.egress.timeout,
    maxBodyBytes: config.egress.max_body_bytes,
    maxRedirects: config.egress.max_redirects,
  });
  const tools = [...builtinTools(config), ...scriptTools(services)];
  const registry = createToolRegistry(tools, (text) => services.redact(text));
  return {
    registry,
    makeContext: (signal) => ({ config, logger: ctx.log, egress, signal }),
  };
}
