import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/errors/tool-error.js';
import { resolveInside } from '../../../src/mcp/tools/paths.js';
import { tmpDir } from './tool-context.js';

let base: string;
let root: string;
const opts = { label: 'workspace' };

beforeAll(() => {
  base = realpathSync(tmpDir('steward-paths-'));
  root = path.join(base, 'ws');
  mkdirSync(path.join(root, 'notes'), { recursive: true });
  writeFileSync(path.join(root, 'notes', 'a.md'), 'a');
  mkdirSync(path.join(base, 'ws-evil'));
  writeFileSync(path.join(base, 'ws-evil', 'secret.txt'), 'x');
  mkdirSync(path.join(base, 'outside'));
  symlinkSync(path.join(base, 'outside'), path.join(root, 'escape'));
  symlinkSync(path.join(root, 'notes'), path.join(root, 'inner-link'));
  symlinkSync(path.join(base, 'outside', 'missing.txt'), path.join(root, 'dangling'));
});

async function refused(userPath: string, word: RegExp): Promise<void> {
  const err = await resolveInside(root, userPath, opts).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, userPath).toBeInstanceOf(ToolError);
  expect((err as Error).message).toMatch(word);
}

describe('resolveInside', () => {
  it('resolves existing and new paths inside the root', async () => {
    expect(await resolveInside(root, 'notes/a.md', opts)).toBe(path.join(root, 'notes', 'a.md'));
    expect(await resolveInside(root, 'new/dir/file.md', opts)).toBe(
      path.join(root, 'new', 'dir', 'file.md'),
    );
    expect(await resolveInside(root, './notes//a.md', opts)).toBe(path.join(root, 'notes', 'a.md'));
    expect(await resolveInside(root, '.', opts)).toBe(root);
  });

  it('follows a symlink that stays inside', async () => {
    expect(await resolveInside(root, 'inner-link/a.md', opts)).toBe(
      path.join(root, 'notes', 'a.md'),
    );
  });

  it('accepts an absolute path inside the root', async () => {
    expect(await resolveInside(root, path.join(root, 'notes', 'a.md'), opts)).toBe(
      path.join(root, 'notes', 'a.md'),
    );
  });

  it('refuses .. segments, even ones that would stay inside', async () => {
    await refused('../outside/x', /"\.\."/);
    await refused('notes/../notes/a.md', /"\.\."/);
    await refused('notes\\..\\..\\x', /"\.\."/);
  });

  it('refuses percent-encoded traversal', async () => {
    await refused('%2e%2e/outside', /percent-encoded/);
    await refused('notes%2F..%2Fx', /percent-encoded/);
    await refused('%2E%2E%5Cx', /percent-encoded/);
  });

  it('refuses absolute paths outside', async () => {
    await refused('/etc/passwd', /outside the workspace/);
    await refused(path.join(base, 'outside'), /outside the workspace/);
  });

  it('refuses a sibling directory that shares the root as a prefix', async () => {
    await refused(path.join(base, 'ws-evil', 'secret.txt'), /outside the workspace/);
  });

  it('refuses symlink escapes, for existing and new files', async () => {
    await refused('escape', /symbolic link/);
    await refused('escape/new-file.txt', /symbolic link/);
    await refused('dangling', /symbolic link/);
  });

  it('refuses NUL bytes', async () => {
    await refused('notes/a.md\0.txt', /NUL byte/);
  });

  it('refuses a root that does not exist', async () => {
    await expect(resolveInside(path.join(base, 'nope'), 'x', opts)).rejects.toThrow(
      /does not exist/,
    );
  });
});
