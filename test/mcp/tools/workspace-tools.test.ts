import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/errors/tool-error.js';
import {
  workspaceList,
  workspaceRead,
  workspaceWrite,
} from '../../../src/mcp/tools/workspace-tools.js';
import { run, testConfig, testContext, tmpDir } from './tool-context.js';

function setup() {
  const config = testConfig();
  return { config, ctx: testContext(config), ws: config.paths.workspace };
}

describe('workspace tools', () => {
  it('writes, reads and lists, creating parent folders', async () => {
    const { ctx, ws } = setup();
    expect(
      await run(workspaceWrite, { path: 'notes/today/todo.md', content: 'buy milk' }, ctx),
    ).toContain('wrote 8 bytes');
    expect(readFileSync(path.join(ws, 'notes/today/todo.md'), 'utf8')).toBe('buy milk');
    expect(await run(workspaceRead, { path: 'notes/today/todo.md' }, ctx)).toBe('buy milk');
    await run(workspaceWrite, { path: 'a.txt', content: 'x' }, ctx);
    expect(await run(workspaceList, {}, ctx)).toBe('a.txt\nnotes/');
    expect(await run(workspaceList, { recursive: true }, ctx)).toBe(
      'a.txt\nnotes/\nnotes/today/\nnotes/today/todo.md',
    );
    expect(await run(workspaceList, { path: 'notes/today' }, ctx)).toBe('todo.md');
  });

  it('refuses traversal and escapes with a ToolError', async () => {
    const { ctx, ws } = setup();
    mkdirSync(ws, { recursive: true });
    const outside = tmpDir();
    writeFileSync(path.join(outside, 'secret'), 'top secret');
    symlinkSync(outside, path.join(ws, 'link'));
    for (const p of ['../x', '%2e%2e/x', '/etc/passwd', 'link/secret']) {
      await expect(run(workspaceRead, { path: p }, ctx)).rejects.toBeInstanceOf(ToolError);
    }
    await expect(run(workspaceWrite, { path: 'link/new', content: 'x' }, ctx)).rejects.toThrow(
      /symbolic link/,
    );
    await expect(run(workspaceList, { path: '..' }, ctx)).rejects.toThrow(/"\.\."/);
  });

  it('refuses content carrying a redaction marker', async () => {
    const { ctx } = setup();
    await expect(
      run(workspaceWrite, { path: 'a.txt', content: 'key=[REDACTED:api_key]' }, ctx),
    ).rejects.toThrow(/REDACTED/);
  });

  it('explains missing files, folders and binary files', async () => {
    const { ctx, ws } = setup();
    await expect(run(workspaceRead, { path: 'nope.md' }, ctx)).rejects.toThrow(
      'nope.md does not exist in the workspace',
    );
    mkdirSync(path.join(ws, 'dir'));
    await expect(run(workspaceRead, { path: 'dir' }, ctx)).rejects.toThrow(/is a directory/);
    writeFileSync(path.join(ws, 'bin'), Buffer.from([1, 0, 2]));
    await expect(run(workspaceRead, { path: 'bin' }, ctx)).rejects.toThrow(/binary/);
    expect(await run(workspaceList, { path: 'dir' }, ctx)).toBe('(empty)');
  });

  it('skips .git folders when listing recursively', async () => {
    const { ctx, ws } = setup();
    mkdirSync(path.join(ws, 'repo', '.git'), { recursive: true });
    writeFileSync(path.join(ws, 'repo', '.git', 'HEAD'), 'ref');
    writeFileSync(path.join(ws, 'repo', 'README.md'), '');
    expect(await run(workspaceList, { recursive: true }, ctx)).toBe('repo/\nrepo/README.md');
  });

  it('bounds a listing', async () => {
    const { ctx, ws } = setup();
    mkdirSync(path.join(ws, 'many'), { recursive: true });
    for (let i = 0; i < 1005; i++)
      writeFileSync(path.join(ws, 'many', `f${String(i).padStart(4, '0')}`), '');
    const out = await run(workspaceList, { path: 'many' }, ctx);
    expect(out.split('\n')).toHaveLength(1001);
    expect(out).toMatch(/truncated at 1000 entries/);
  });
});
