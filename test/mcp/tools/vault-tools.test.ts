import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/mcp/tool-types.js';
import { vaultTools } from '../../../src/mcp/tools/vault-tools.js';
import { run, testConfig, testContext, tmpDir } from './tool-context.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

function makeVault(options: { repo?: boolean; remote?: boolean } = {}) {
  const vault = tmpDir('steward-vault-');
  let bare: string | undefined;
  if (options.repo) {
    git(vault, 'init', '-q', '-b', 'main');
    git(vault, 'config', 'user.name', 'Test');
    git(vault, 'config', 'user.email', 'test@example.invalid');
    git(vault, 'config', 'commit.gpgsign', 'false');
  }
  if (options.remote) {
    bare = tmpDir('steward-remote-');
    git(bare, 'init', '-q', '--bare', '-b', 'main');
  }
  const config = testConfig({ 'vault.path': vault, ...(bare ? { 'vault.remote': bare } : {}) });
  const tools = Object.fromEntries(vaultTools(config).map((t) => [t.name, t])) as Record<
    string,
    ToolDefinition
  >;
  const tool = (name: string) => tools[name] as ToolDefinition;
  return { vault, bare, ctx: testContext(config), tool };
}

describe('vault tools', () => {
  it('are not offered without vault.path', () => {
    expect(vaultTools(testConfig())).toEqual([]);
  });

  it('write, read and list notes, hiding dot folders', async () => {
    const { vault, ctx, tool } = makeVault();
    mkdirSync(path.join(vault, '.obsidian'));
    const out = await run(
      tool('vault_write'),
      { path: 'ideas/garden.md', content: '# Garden\n' },
      ctx,
    );
    expect(out).toContain('wrote 9 bytes to ideas/garden.md; the vault is not a git repository');
    expect(await run(tool('vault_read'), { path: 'ideas/garden.md' }, ctx)).toBe('# Garden\n');
    expect(await run(tool('vault_list'), { recursive: true }, ctx)).toBe('ideas/\nideas/garden.md');
    await expect(run(tool('vault_read'), { path: '../x.md' }, ctx)).rejects.toThrow(/"\.\."/);
    await expect(
      run(tool('vault_write'), { path: 'x.md', content: '[REDACTED:token]' }, ctx),
    ).rejects.toThrow(/REDACTED/);
  });

  it('commits to the vault repository and pushes to the remote', async () => {
    const { vault, bare, ctx, tool } = makeVault({ repo: true, remote: true });
    writeFileSync(path.join(vault, 'untouched.md'), 'not mine');
    const out = await run(
      tool('vault_write'),
      {
        path: 'journal/2025-01-06.md',
        content: 'Planted tomatoes.',
        commit_message: 'Journal: planting day',
      },
      ctx,
    );
    expect(out).toMatch(/committed \w+ and pushed to .* \(main\)/);
    expect(git(vault, 'log', '-1', '--format=%s')).toBe('Journal: planting day');
    expect(git(vault, 'show', '--name-only', '--format=', 'HEAD')).toBe('journal/2025-01-06.md');
    expect(git(vault, 'status', '--porcelain')).toBe('?? untouched.md');
    expect(git(bare as string, 'log', 'main', '-1', '--format=%s')).toBe('Journal: planting day');

    const again = await run(
      tool('vault_write'),
      { path: 'journal/2025-01-06.md', content: 'Planted tomatoes.' },
      ctx,
    );
    expect(again).toContain('the file did not change');
    await run(
      tool('vault_write'),
      { path: 'journal/2025-01-06.md', content: 'Planted basil too.' },
      ctx,
    );
    expect(git(vault, 'log', '-1', '--format=%s')).toBe('Update journal/2025-01-06.md');
    expect(git(bare as string, 'rev-list', '--count', 'main')).toBe('2');
  });

  it('refuses to touch git internals, also through a symlink', async () => {
    const { vault, ctx, tool } = makeVault({ repo: true });
    symlinkSync(path.join(vault, '.git'), path.join(vault, 'gitdir'));
    for (const p of ['.git/config', '.GIT/config', 'gitdir/config', 'sub/.git/x']) {
      await expect(run(tool('vault_read'), { path: p }, ctx)).rejects.toThrow(/\.git folder/);
    }
    await expect(
      run(tool('vault_write'), { path: '.git/hooks/pre-commit', content: 'rm -rf ~' }, ctx),
    ).rejects.toThrow(/\.git folder/);
    await expect(run(tool('vault_list'), { path: '.git' }, ctx)).rejects.toThrow(/\.git folder/);
  });

  it('refuses note names that git would read as options, and never amends or forges', async () => {
    const { vault, ctx, tool } = makeVault({ repo: true });
    await run(
      tool('vault_write'),
      { path: 'first.md', content: 'one', commit_message: 'first' },
      ctx,
    );
    const before = git(vault, 'rev-parse', 'HEAD');
    for (const name of ['--amend', '--author=Mallory <m@example.invalid>', 'notes/-x.md']) {
      await expect(
        run(tool('vault_write'), { path: name, content: 'x', commit_message: 'planted' }, ctx),
      ).rejects.toThrow(/starting with "-"/);
      await expect(run(tool('vault_read'), { path: name }, ctx)).rejects.toThrow(/starting with/);
    }
    expect(git(vault, 'rev-parse', 'HEAD')).toBe(before);
    expect(git(vault, 'log', '-1', '--format=%an %s')).toBe('Test first');
  });

  it('commits without pushing when no remote is configured, and reports a failed push', async () => {
    const local = makeVault({ repo: true });
    expect(
      await run(
        local.tool('vault_write'),
        { path: 'a.md', content: 'a', commit_message: 'add a' },
        local.ctx,
      ),
    ).toMatch(/committed \w+$/);
    const broken = makeVault({ repo: true, remote: true });
    rmSync(broken.bare as string, { recursive: true, force: true });
    const out = await run(broken.tool('vault_write'), { path: 'a.md', content: 'a' }, broken.ctx);
    expect(out).toMatch(/committed \w+, but the push to .* failed/);
    expect(git(broken.vault, 'log', '-1', '--format=%s')).toBe('Update a.md');
  });

  it('searches notes by content and title, staying fresh as files change', async () => {
    const { vault, ctx, tool } = makeVault();
    const search = (query: string) => run(tool('vault_search'), { query }, ctx);
    mkdirSync(path.join(vault, 'garden'));
    writeFileSync(
      path.join(vault, 'garden', 'tomatoes.md'),
      '# Tomato care\n\nWater deeply twice a week and stake the plants.',
    );
    writeFileSync(path.join(vault, 'recipes.md'), 'Soup with fresh tomatoes and basil.');
    writeFileSync(path.join(vault, 'todo.txt'), 'tomato in a text file is not indexed');
    mkdirSync(path.join(vault, '.trash'));
    writeFileSync(path.join(vault, '.trash', 'old.md'), 'tomato');

    const first = await search('tomato');
    expect(first).toMatch(/^1\. Tomato care \(garden\/tomatoes\.md\)\n {3}.*Tomato care/);
    expect(first).toContain('2. recipes (recipes.md)');
    expect(first).not.toContain('todo.txt');
    expect(first).not.toContain('.trash');

    expect(await search('basil')).toMatch(
      /recipes \(recipes\.md\)\n {3}Soup with fresh tomatoes and basil\./,
    );

    writeFileSync(
      path.join(vault, 'recipes.md'),
      '# Recipes\n\nPumpkin pie with cinnamon, nothing else here.',
    );
    writeFileSync(path.join(vault, 'new.md'), 'Cucumbers need lots of water.');
    expect(await search('basil')).toBe('No notes match "basil".');
    expect(await search('pumpkin')).toContain('1. Recipes (recipes.md)');
    expect(await search('cucumbers')).toContain('new (new.md)');

    rmSync(path.join(vault, 'new.md'));
    expect(await search('cucumbers')).toBe('No notes match "cucumbers".');
    expect(readFileSync(path.join(vault, 'garden', 'tomatoes.md'), 'utf8')).toContain('stake');
  });
});
