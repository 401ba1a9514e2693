import { z } from 'zod';
import type { LoadedConfig } from '../../config/load.js';
import { defineTool, type ToolDefinition } from '../tool-types.js';
import { listEntries, readText, writeText, type Root } from './file-ops.js';

const pathField = z
  .string()
  .min(1)
  .describe('Path relative to the workspace root, e.g. notes/todo.md');

function workspaceRoot(config: LoadedConfig): Root {
  return { dir: config.paths.workspace, label: 'workspace', createRoot: true };
}

export const workspaceRead = defineTool({
  name: 'workspace_read',
  description: 'Read a text file from the workspace.',
  inputSchema: z.object({ path: pathField }),
  handler: (args, ctx) => readText(workspaceRoot(ctx.config), args.path),
});

export const workspaceWrite = defineTool({
  name: 'workspace_write',
  description:
    'Create or replace a text file in the workspace; parent folders are created as needed.',
  inputSchema: z.object({
    path: pathField,
    content: z.string().describe('The full new content of the file'),
  }),
  handler: async (args, ctx) => {
    const root = workspaceRoot(ctx.config);
    await writeText(root, args.path, args.content);
    return `wrote ${Buffer.byteLength(args.content)} bytes to ${args.path}`;
  },
});

export const workspaceList = defineTool({
  name: 'workspace_list',
  description: 'List files and folders in the workspace (folders end with /).',
  inputSchema: z.object({
    path: z
      .string()
      .optional()
      .describe('Folder relative to the workspace root; the root when omitted'),
    recursive: z.boolean().optional().describe('Also list the contents of sub-folders'),
  }),
  handler: (args, ctx) =>
    listEntries(workspaceRoot(ctx.config), args.path ?? '.', {
      recursive: args.recursive ?? false,
    }),
});

export function workspaceTools(): ToolDefinition[] {
  return [workspaceRead, workspaceWrite, workspaceList];
}
