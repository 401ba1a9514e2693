import { z } from 'zod';
import type { LoadedConfig } from '../config/load.js';
import type { Logger } from '../log/logger.js';
import type { Egress } from '../net/egress.js';

/** What a tool handler may use; built once per call by the tool server. */
export interface ToolContext {
  config: LoadedConfig;
  logger: Logger;
  egress: Egress;
  /** Fires when the call is cancelled or the server shuts down. */
  signal: AbortSignal;
  /**
   * Told before a tool writes a file of the scripts directory, so that `script_reload` imports
   * it as written by the AI (absent where the script services are not).
   */
  scriptFiles?: { written(name: string, source: string): Promise<void> };
}

export interface ToolDefinition<S extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  /** Validates `arguments`; `inputJsonSchema` gives the JSON Schema that tools/list shows. */
  inputSchema: S;
  /** Returns the result text; throws a ToolError for a failure the AI should read. */
  handler(args: z.infer<S>, ctx: ToolContext): Promise<string>;
}

/** Keeps the handler's argument type tied to the schema while the list stays plain. */
export function defineTool<S extends z.ZodObject>(tool: ToolDefinition<S>): ToolDefinition<S> {
  return tool;
}

export interface ToolJsonSchema {
  type: 'object';
  properties: Record<string, { type: string; description: string } & Record<string, unknown>>;
  required?: string[];
  [key: string]: unknown;
}

/** The spec's Tool.inputSchema: `type: object`, properties with `type` and `description`. */
export function inputJsonSchema(tool: ToolDefinition): ToolJsonSchema {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.inputSchema, {
    io: 'input',
  }) as Record<string, unknown>;
  return schema as ToolJsonSchema;
}
