import path from 'node:path';
import { z } from 'zod';
import type { LoadedConfig } from '../../config/load.js';
import { isScriptName } from '../../contracts/script-names.js';
import { defineTool, type ToolContext, type ToolDefinition } from '../tool-types.js';
import { listEntries, readText, writeText, type Root } from './file-ops.js';
import { resolveInside } from './paths.js';

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
    const { scriptFiles } = ctx;
    await writeText(root, args.path, args.content, {
      ...(scriptFiles && {
        // Recorded before the write: an import that sees the new file always sees the record.
        beforeWrite: async (file: string) => {
          const name = await scriptFileName(root, ctx, file);
          if (name) await scriptFiles.written(name, args.content);
        },
      }),
    });
    return `wrote ${Buffer.byteLength(args.content)} bytes to ${args.path}`;
  },
});

/** The script a real path is the file of (the scripts directory mirrors the store), or null. */
async function scriptFileName(root: Root, ctx: ToolContext, file: string): Promise<string | null> {
  const name = path.basename(file);
  if (!isScriptName(name)) return null;
  // Resolved as the tool resolved `file`: through the same links, to the same real directory.
  const dir = await resolveInside(
    root.dir,
    path.relative(root.dir, ctx.config.paths.scripts),
    root,
  ).catch(() => null);
  return dir === path.dirname(file) ? name : null;
}

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
