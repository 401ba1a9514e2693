import { realpath } from 'node:fs/promises';
import { z } from 'zod';
import type { LoadedConfig } from '../../config/load.js';
import { ToolError } from '../../errors/tool-error.js';
import { defineTool, type ToolDefinition } from '../tool-types.js';
import { listEntries, readText, writeText, type Root } from './file-ops.js';
import { relativeTo } from './paths.js';
import { createVaultGit } from './vault-git.js';
import { createVaultIndex } from './vault-index.js';

const maxSearchResults = 10;

const pathField = z
  .string()
  .min(1)
  .describe('Path relative to the vault root, e.g. projects/steward.md');

/** The vault tools, or none when `vault.path` is not configured. */
export function vaultTools(config: LoadedConfig): ToolDefinition[] {
  const dir = config.paths.vault;
  if (!dir) return [];
  const root: Root = { dir, label: 'vault' };
  const git = createVaultGit({
    dir,
    branch: config.vault.branch,
    ...(config.vault.remote ? { remote: config.vault.remote } : {}),
  });
  const index = createVaultIndex(dir);

  const vaultRead = defineTool({
    name: 'vault_read',
    description: 'Read a note from the vault.',
    inputSchema: z.object({ path: pathField }),
    handler: (args) => readText(root, args.path),
  });

  const vaultWrite = defineTool({
    name: 'vault_write',
    description:
      'Create or replace a note in the vault; the change is committed (and pushed when a remote is configured) if the vault is a git repository.',
    inputSchema: z.object({
      path: pathField,
      content: z.string().describe('The full new content of the note'),
      commit_message: z
        .string()
        .min(1)
        .optional()
        .describe('Git commit message; a default naming the file is used when omitted'),
    }),
    handler: async (args, ctx) => {
      const file = await writeText(root, args.path, args.content);
      const rel = relativeTo(await realpath(dir), file);
      let outcome: string;
      try {
        outcome = await git.commitFile(rel, args.commit_message ?? `Update ${rel}`);
      } catch (err) {
        ctx.logger.warn({ err: (err as Error).message, path: rel }, 'vault commit failed');
        throw new ToolError(
          `wrote ${rel}, but committing it failed: ${(err as Error).message.trim().split('\n')[0]}`,
        );
      }
      return `wrote ${Buffer.byteLength(args.content)} bytes to ${rel}; ${outcome}`;
    },
  });

  const vaultList = defineTool({
    name: 'vault_list',
    description: 'List notes and folders in the vault (folders end with /).',
    inputSchema: z.object({
      path: z
        .string()
        .optional()
        .describe('Folder relative to the vault root; the root when omitted'),
      recursive: z.boolean().optional().describe('Also list the contents of sub-folders'),
    }),
    handler: (args) =>
      listEntries(root, args.path ?? '.', {
        recursive: args.recursive ?? false,
        hideDotfiles: true,
      }),
  });

  const vaultSearch = defineTool({
    name: 'vault_search',
    description:
      'Full-text search over the markdown notes of the vault; returns the best matches with a snippet.',
    inputSchema: z.object({
      query: z.string().min(1).describe('Words to search for'),
      limit: z
        .number()
        .int()
        .positive()
        .max(50)
        .optional()
        .describe(`Maximum number of results (default ${maxSearchResults})`),
    }),
    handler: async (args) => {
      const hits = await index.search(args.query, args.limit ?? maxSearchResults);
      if (hits.length === 0) return `No notes match "${args.query}".`;
      return hits
        .map((hit, i) => `${i + 1}. ${hit.title} (${hit.path})\n   ${hit.snippet}`)
        .join('\n');
    },
  });

  return [vaultRead, vaultWrite, vaultList, vaultSearch];
}
