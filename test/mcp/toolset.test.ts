import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { createEgress } from '../../src/net/egress.js';
import { createToolset, type ToolsetDeps } from '../../src/mcp/toolset.js';
import { testConfig } from './tools/tool-context.js';
import { memoryTrail } from '../support/trail.js';

const egress = createEgress({
  allow: ['127.0.0.1'],
  timeoutMs: 1000,
  maxBodyBytes: 1000,
  maxRedirects: 0,
});

describe('the toolset of a process', () => {
  it('lists the built-in tools, and the script tools only where the script services exist', () => {
    const config = testConfig();
    const ctx = { config, log: createLogger('silent') };
    const bare = createToolset(ctx, { redact: (t) => t, egress, trail: memoryTrail() });
    const names = bare.registry.list().map((tool) => tool.name);
    expect(names).toContain('workspace_read');
    expect(names).not.toContain('script_run');

    // The script tools only need their deps at call time; listing them needs none of their work.
    const scripts = {} as NonNullable<ToolsetDeps['scripts']>;
    const full = createToolset(ctx, { redact: (t) => t, egress, scripts, trail: memoryTrail() });
    expect(full.registry.list().map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['script_list', 'script_run', 'script_exec', 'script_reload']),
    );
  });

  it("hands each call the process's config, logger and egress, and redacts every result", async () => {
    const config = testConfig();
    mkdirSync(config.paths.workspace, { recursive: true });
    writeFileSync(path.join(config.paths.workspace, 'note.txt'), 'the token is tok-123');
    const log = createLogger('silent');
    const trail = memoryTrail();
    const toolset = createToolset(
      { config, log },
      { redact: (t) => t.replaceAll('tok-123', '[REDACTED:T]'), egress, trail },
    );
    const signal = new AbortController().signal;
    const context = toolset.makeContext(signal);
    expect(context).toMatchObject({ config, logger: log, egress, signal });
    const result = await toolset.registry.call('workspace_read', { path: 'note.txt' }, context);
    expect(JSON.stringify(result)).toContain('the token is [REDACTED:T]');
    expect(JSON.stringify(result)).not.toContain('tok-123');
    // Every call is in the audit log: tool, target, outcome, arguments.
    expect(trail.events).toEqual([
      expect.objectContaining({
        actor: 'ai',
        channel: 'mcp',
        action: 'tool.workspace_read',
        target: 'note.txt',
        outcome: 'ok',
        details: { args: '{"path":"note.txt"}' },
      }),
    ]);
    await expect(
      toolset.registry.call('workspace_read', { path: '../outside.txt' }, context),
    ).resolves.toMatchObject({ isError: true });
    expect(trail.events[1]).toMatchObject({ action: 'tool.workspace_read', outcome: 'refused' });
  });

  it('records arguments redacted and cut to 200 characters', async () => {
    const config = testConfig();
    mkdirSync(config.paths.workspace, { recursive: true });
    const trail = memoryTrail();
    const toolset = createToolset(
      { config, log: createLogger('silent') },
      { redact: (t) => t.replaceAll('tok-123', '[REDACTED:T]'), egress, trail },
    );
    const context = toolset.makeContext(new AbortController().signal);
    await toolset.registry.call(
      'workspace_write',
      { path: 'x.txt', content: `tok-123 ${'y'.repeat(1000)}` },
      context,
    );
    const args = String(trail.events[0]?.details?.args);
    expect(args).toContain('[REDACTED:T]');
    expect(args).not.toContain('tok-123');
    expect(args.length).toBeLessThanOrEqual(201);
  });
});
