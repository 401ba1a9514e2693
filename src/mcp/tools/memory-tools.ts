import { z } from 'zod';
import type { LoadedConfig } from '../../config/load.js';
import { defineTool, type ToolDefinition } from '../tool-types.js';
import { MissingFileError, readText, writeText, type Root } from './file-ops.js';

export const defaultMemoryFile = 'MEMORY.md';

const fileField = z
  .string()
  .min(1)
  .optional()
  .describe(`Memory file relative to the memory folder; ${defaultMemoryFile} when omitted`);

function memoryRoot(config: LoadedConfig): Root {
  return { dir: config.paths.memory, label: 'memory folder', createRoot: true };
}

export const memoryRead = defineTool({
  name: 'memory_read',
  description: `Read long-term memory notes (${defaultMemoryFile} unless another memory file is named).`,
  inputSchema: z.object({ file: fileField }),
  handler: async (args, ctx) => {
    const file = args.file ?? defaultMemoryFile;
    try {
      return await readText(memoryRoot(ctx.config), file);
    } catch (err) {
      // An empty memory is a normal state, not a failure the AI should react to.
      if (err instanceof MissingFileError) {
        return `(${file} is empty)`;
      }
      throw err;
    }
  },
});

export const memoryWrite = defineTool({
  name: 'memory_write',
  description: `Save long-term memory notes (${defaultMemoryFile} unless another memory file is named). Replaces the file unless append is true.`,
  inputSchema: z.object({
    file: fileField,
    content: z.string().describe('Text to write'),
    append: z
      .boolean()
      .optional()
      .describe('Add the content at the end instead of replacing the file'),
  }),
  handler: async (args, ctx) => {
    const file = args.file ?? defaultMemoryFile;
    await writeText(memoryRoot(ctx.config), file, args.content, { append: args.append ?? false });
    return `${args.append ? 'appended' : 'wrote'} ${Buffer.byteLength(args.content)} bytes to ${file}`;
  },
});

export function memoryTools(): ToolDefinition[] {
  return [memoryRead, memoryWrite];
}
