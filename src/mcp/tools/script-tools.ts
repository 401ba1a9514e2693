import { z } from 'zod';
import { isAppError } from '../../errors/catalogue.js';
import { isRefused, type RunOutcome } from '../../queue/script-runs.js';
import { refusalError, type ScriptRunner } from '../../scripts/script-runner.js';
import type { ScriptService } from '../../scripts/script-service.js';
import { hashSource } from '../../contracts/script-hashes.js';
import { ToolError } from '../../errors/tool-error.js';
import { bareScriptName as bare, toScriptName as withExt } from '../../contracts/script-names.js';
import { defineTool, type ToolDefinition } from '../tool-types.js';

export interface ScriptToolDeps {
  scripts: ScriptService;
  runner: ScriptRunner;
  /** `scripts.allowlist`: names without `.star` that run without approval. */
  allowlist: readonly string[];
}

/** At most this many `exec-` scripts wait for review; a looping AI cannot flood the queue. */
export const maxPendingExec = 50;

/** What `script_run` answers: its result on success (the registry redacts it on the way out). */
function render(result: RunOutcome): string {
  if (!result.success) {
    const logs = result.logs.length ? `\nlogs:\n${result.logs.join('\n')}` : '';
    throw new ToolError(`Script failed: ${result.error}${logs}`);
  }
  const { result: value, logs, duration_ms } = result;
  return JSON.stringify({ result: value, logs, duration_ms });
}

export function scriptTools({ scripts, runner, allowlist }: ScriptToolDeps): ToolDefinition[] {
  const allowed = new Set(allowlist.map(bare));

  // Refusals (unknown, pending, rejected, modified) reach the AI in the spec's wording: to-mcp.ts.
  async function run(name: string, args: unknown[], fn?: string): Promise<string> {
    const outcome = await runner.run({
      name: withExt(name),
      args,
      ...(fn ? { function: fn } : {}),
      origin: 'mcp',
      allowUnapproved: allowed.has(bare(name)),
    });
    if (isRefused(outcome)) throw refusalError(withExt(name), outcome);
    return render(outcome);
  }

  const scriptList = defineTool({
    name: 'script_list',
    description:
      'List the Starlark scripts with their status, description and whether they can run now.',
    inputSchema: z.object({}),
    async handler() {
      const records = await scripts.store.list();
      const rows = records.map((r) => ({
        name: bare(r.name),
        status: r.status,
        description: r.metadata.description,
        required_secrets: r.metadata.secrets,
        runnable:
          allowed.has(bare(r.name)) || (r.status === 'approved' && r.hash === r.approved_hash),
      }));
      return JSON.stringify({ scripts: rows });
    },
  });

  const scriptRun = defineTool({
    name: 'script_run',
    description:
      'Run an approved (or allowlisted) Starlark script. Returns its JSON result and printed logs.',
    inputSchema: z.object({
      name: z.string().min(1).describe('script name without the .star extension'),
      function: z
        .string()
        .optional()
        .describe('function to call; default: main() or the global result'),
      args: z.array(z.unknown()).optional().describe('positional arguments for the function'),
    }),
    handler: ({ name, function: fn, args }) => run(name, args ?? [], fn),
  });

  const scriptExec = defineTool({
    name: 'script_exec',
    description:
      'Submit Starlark code to run. New code is stored as a script pending administrator approval; once approved, sending the same code again runs it.',
    inputSchema: z.object({ code: z.string().min(1).describe('Starlark source code to run') }),
    async handler({ code }) {
      const hash = hashSource(code);
      const name = `exec-${hash.slice('sha256:'.length, 'sha256:'.length + 12)}.star`;
      const existing = await scripts.store.get(name);
      if (existing && existing.hash === hash && existing.status === 'approved') {
        return run(name, []);
      }
      if (existing?.status === 'rejected') {
        throw new ToolError(
          `This code (${bare(name)}) was rejected by an administrator and cannot run.`,
        );
      }
      if (!existing) {
        try {
          await scripts.create(name, code, 'mcp', 'submitted through script_exec');
        } catch (err) {
          if (isAppError(err)) throw new ToolError(`The code was not stored: ${err.message}`);
          throw err;
        }
        await prunePendingExec(scripts, name);
      }
      throw new ToolError(
        `The code was stored as script "${bare(name)}", pending approval: an administrator must approve it before it can run. Send the same code again after approval.`,
      );
    },
  });

  const scriptReload = defineTool({
    name: 'script_reload',
    description: 'Re-read the scripts directory: changed or new files become pending versions.',
    inputSchema: z.object({}),
    async handler() {
      const report = await scripts.reloadFromDisk();
      return JSON.stringify(report);
    },
  });

  return [scriptList, scriptRun, scriptExec, scriptReload];
}

async function prunePendingExec(scripts: ScriptService, keep: string): Promise<void> {
  const pending = (await scripts.store.list())
    .filter((r) => r.name.startsWith('exec-') && r.status === 'pending' && r.name !== keep)
    .sort((a, b) => a.created_at.localeCompare(b.created_at));
  const excess = pending.length + 1 - maxPendingExec;
  for (const record of pending.slice(0, Math.max(0, excess))) {
    await scripts.remove(record.name, 'steward', 'mcp');
  }
}
