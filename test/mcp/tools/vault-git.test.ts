import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createVaultGit } from '../../../src/mcp/tools/vault-git.js';
import { tmpDir } from './tool-context.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** A vault repository with one committed note and an identity of its own. */
function repo(identity = true): string {
  const dir = tmpDir('steward-vault-git-');
  git(dir, 'init', '-q', '-b', 'main');
  if (identity) {
    git(dir, 'config', 'user.name', 'Vault Owner');
    git(dir, 'config', 'user.email', 'owner@example.invalid');
  }
  git(dir, 'config', 'commit.gpgsign', 'false');
  writeFileSync(path.join(dir, 'base.md'), 'base');
  git(dir, 'add', '.');
  git(
    dir,
    '-c',
    'user.name=Setup',
    '-c',
    'user.email=setup@example.invalid',
    'commit',
    '-qm',
    'base',
  );
  return dir;
}

describe('createVaultGit', () => {
  it('commits only the named file, leaving the owner’s other changes alone', async () => {
    const dir = repo();
    writeFileSync(path.join(dir, 'base.md'), 'edited by the owner, not ready');
    writeFileSync(path.join(dir, 'staged.md'), 'staged by the owner');
    git(dir, 'add', 'staged.md');
    writeFileSync(path.join(dir, 'note.md'), 'from the AI');
    const out = await createVaultGit({ dir, branch: 'main' }).commitFile('note.md', 'Add note');
    expect(out).toMatch(/^committed [0-9a-f]{40}$/);
    expect(git(dir, 'show', '--name-only', '--format=%s%n%an <%ae>', 'HEAD')).toBe(
      'Add note\nVault Owner <owner@example.invalid>\n\nnote.md',
    );
    expect(git(dir, 'diff', '--name-only')).toBe('base.md');
    expect(git(dir, 'diff', '--cached', '--name-only')).toBe('staged.md');
  });

  it('says so when the file did not change', async () => {
    const dir = repo();
    const out = await createVaultGit({ dir, branch: 'main' }).commitFile('base.md', 'no-op');
    expect(out).toBe('the file did not change, so nothing was committed');
    expect(git(dir, 'rev-list', '--count', 'HEAD')).toBe('1');
  });

  it('commits nothing outside a repository, nor into a repository the vault only sits inside', async () => {
    const plain = tmpDir('steward-vault-plain-');
    writeFileSync(path.join(plain, 'a.md'), 'a');
    expect(await createVaultGit({ dir: plain, branch: 'main' }).commitFile('a.md', 'x')).toBe(
      'the vault is not a git repository, so nothing was committed',
    );
    const outer = repo();
    const vault = path.join(outer, 'vault');
    mkdirSync(vault);
    writeFileSync(path.join(vault, 'a.md'), 'a');
    expect(await createVaultGit({ dir: vault, branch: 'main' }).commitFile('a.md', 'x')).toBe(
      'the vault is not a git repository, so nothing was committed',
    );
    expect(git(outer, 'rev-list', '--count', 'HEAD')).toBe('1');
  });

  it('commits as Steward when no identity is configured', async () => {
    const dir = repo(false);
    const saved = { ...process.env };
    // No user configuration either (simple-git drops ambient GIT_* variables, so HOME it is).
    const home = tmpDir('steward-home-');
    process.env.HOME = home;
    process.env.XDG_CONFIG_HOME = home;
    delete process.env.EMAIL;
    try {
      writeFileSync(path.join(dir, 'n.md'), 'n');
      await createVaultGit({ dir, branch: 'main' }).commitFile('n.md', 'Add n');
    } finally {
      process.env = saved;
    }
    expect(git(dir, 'log', '-1', '--format=%an <%ae>')).toBe('Steward <steward@localhost>');
  });

  it('pushes to the configured branch of the remote', async () => {
    const dir = repo();
    const bare = tmpDir('steward-vault-remote-');
    git(bare, 'init', '-q', '--bare', '-b', 'trunk');
    writeFileSync(path.join(dir, 'n.md'), 'n');
    const out = await createVaultGit({ dir, branch: 'trunk', remote: bare }).commitFile(
      'n.md',
      'Add n',
    );
    expect(out).toMatch(new RegExp(`^committed [0-9a-f]{40} and pushed to ${bare} \\(trunk\\)$`));
    expect(git(bare, 'log', 'trunk', '-1', '--format=%s')).toBe('Add n');
  });

  it('keeps the commit and reports the first line of a failed push', async () => {
    const dir = repo();
    const gone = path.join(tmpDir('steward-vault-gone-'), 'missing.git');
    writeFileSync(path.join(dir, 'n.md'), 'n');
    const out = await createVaultGit({ dir, branch: 'main', remote: gone }).commitFile('n.md', 'm');
    expect(out).toMatch(
      new RegExp(`^committed [0-9a-f]{40}, but the push to ${gone} failed: [^\\n]+$`),
    );
    expect(git(dir, 'log', '-1', '--format=%s')).toBe('m');
  });

  it('runs concurrent commits one after another', async () => {
    const dir = repo();
    const vault = createVaultGit({ dir, branch: 'main' });
    const names = ['a.md', 'b.md', 'c.md', 'd.md', 'e.md'];
    for (const name of names) writeFileSync(path.join(dir, name), name);
    const results = await Promise.all(names.map((name) => vault.commitFile(name, `Add ${name}`)));
    expect(results.every((r) => r.startsWith('committed '))).toBe(true);
    expect(git(dir, 'rev-list', '--count', 'HEAD')).toBe('6');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('handles names with spaces and messages over several lines', async () => {
    const dir = repo();
    mkdirSync(path.join(dir, 'my notes'));
    writeFileSync(path.join(dir, 'my notes', 'a b.md'), 'x');
    await createVaultGit({ dir, branch: 'main' }).commitFile('my notes/a b.md', 'Title\n\nBody');
    expect(git(dir, 'log', '-1', '--format=%B')).toBe('Title\n\nBody');
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD')).toBe('my notes/a b.md');
    rmSync(path.join(dir, 'my notes'), { recursive: true });
  });

  // The tools refuse names starting with "-"; the commit still passes the path after "--", so a
  // dashed file made outside them is a path: "--all" must not commit the owner's other edits,
  // "--amend" must not rewrite the last commit.
  it('commits a note whose name looks like a git option as a file name', async () => {
    const dir = repo();
    writeFileSync(path.join(dir, 'base.md'), 'edited by the owner, not ready');
    writeFileSync(path.join(dir, '--all'), 'note');
    await createVaultGit({ dir, branch: 'main' }).commitFile('--all', 'Add a note');
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD')).toBe('--all');
    expect(git(dir, 'diff', '--name-only')).toBe('base.md');

    const before = git(dir, 'rev-parse', 'HEAD');
    writeFileSync(path.join(dir, '--amend'), 'planted');
    await createVaultGit({ dir, branch: 'main' }).commitFile('--amend', 'x');
    expect(git(dir, 'rev-parse', 'HEAD~1')).toBe(before);
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD')).toBe('--amend');
  });
});
