import { mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createVaultIndex, titleOf } from '../../../src/mcp/tools/vault-index.js';
import { tmpDir } from './tool-context.js';

function vault(files: Record<string, string>): string {
  const dir = tmpDir('steward-vault-index-');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const paths = (hits: Array<{ path: string }>) => hits.map((h) => h.path);

describe('titleOf', () => {
  it('takes the first level-one heading, without closing hashes', () => {
    expect(titleOf('intro\n# Garden plan ##\n# Second', 'x.md')).toBe('Garden plan');
    expect(titleOf('## Only a sub-heading\ntext', 'notes/Plan.MD')).toBe('Plan');
    expect(titleOf('#hashtag, not a heading', 'tags.md')).toBe('tags');
  });
});

describe('createVaultIndex', () => {
  it('finds notes by words in title and text, the title weighing more', async () => {
    const dir = vault({
      'mentions.md': 'Some text that mentions compost once among many other words here.',
      'garden/compost.md': '# Compost\n\nGreens and browns.',
    });
    const hits = await createVaultIndex(dir).search('compost', 10);
    expect(paths(hits)).toEqual(['garden/compost.md', 'mentions.md']);
    expect(hits[0]?.title).toBe('Compost');
    expect(hits[1]?.title).toBe('mentions');
  });

  it('matches prefixes and small typos', async () => {
    const index = createVaultIndex(vault({ 'a.md': 'Tomatoes ripen in August.' }));
    expect(paths(await index.search('tomat', 10))).toEqual(['a.md']);
    expect(paths(await index.search('tomatoas', 10))).toEqual(['a.md']);
    expect(await index.search('cucumber', 10)).toEqual([]);
  });

  it('gives a snippet around the first hit, marking cut text', async () => {
    const long = `${'lorem ipsum '.repeat(40)}the basil grows\n\nwell ${'dolor sit '.repeat(40)}`;
    const [hit] = await createVaultIndex(vault({ 'a.md': long })).search('basil', 1);
    expect(hit?.snippet.startsWith('…')).toBe(true);
    expect(hit?.snippet.endsWith('…')).toBe(true);
    expect(hit?.snippet).toContain('the basil grows well');
    expect(hit?.snippet.length).toBeLessThanOrEqual(162);
  });

  it('honours the limit', async () => {
    const files = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`n${i}.md`, 'pepper']));
    expect(await createVaultIndex(vault(files)).search('pepper', 3)).toHaveLength(3);
  });

  it('indexes markdown only, outside dot folders, and follows no links', async () => {
    const outside = vault({ 'secret.md': 'password for the bank' });
    const dir = vault({
      'note.md': 'bank holiday',
      'note.txt': 'bank text file',
      '.obsidian/workspace.md': 'bank',
      '.trash/old.md': 'bank',
    });
    symlinkSync(path.join(outside, 'secret.md'), path.join(dir, 'linked.md'));
    symlinkSync(outside, path.join(dir, 'linked-folder'));
    const index = createVaultIndex(dir);
    expect(paths(await index.search('bank', 10))).toEqual(['note.md']);
    expect(await index.search('password', 10)).toEqual([]);
  });

  it('skips notes over 1 MiB', async () => {
    const dir = vault({ 'huge.md': `needle ${'x'.repeat(1024 * 1024)}`, 'small.md': 'needle' });
    expect(paths(await createVaultIndex(dir).search('needle', 10))).toEqual(['small.md']);
  });

  it('follows edits, additions and deletions made by anyone between searches', async () => {
    const dir = vault({ 'a.md': 'apples', 'b.md': 'bananas' });
    const index = createVaultIndex(dir);
    expect(paths(await index.search('apples', 10))).toEqual(['a.md']);
    writeFileSync(path.join(dir, 'a.md'), 'cherries and more');
    writeFileSync(path.join(dir, 'c.md'), 'apples again');
    rmSync(path.join(dir, 'b.md'));
    expect(paths(await index.search('apples', 10))).toEqual(['c.md']);
    expect(paths(await index.search('cherries', 10))).toEqual(['a.md']);
    expect(await index.search('bananas', 10)).toEqual([]);
  });

  it('notices a same-size edit by its modification time', async () => {
    const dir = vault({ 'a.md': 'plum' });
    const index = createVaultIndex(dir);
    expect(paths(await index.search('plum', 10))).toEqual(['a.md']);
    writeFileSync(path.join(dir, 'a.md'), 'pear');
    const later = new Date(Date.now() + 5_000);
    utimesSync(path.join(dir, 'a.md'), later, later);
    expect(paths(await index.search('pear', 10))).toEqual(['a.md']);
    expect(await index.search('plum', 10)).toEqual([]);
  });

  it('answers concurrent searches alike', async () => {
    const index = createVaultIndex(vault({ 'a.md': 'figs' }));
    const results = await Promise.all([index.search('figs', 10), index.search('figs', 10)]);
    expect(results.map(paths)).toEqual([['a.md'], ['a.md']]);
  });

  it('finds nothing in a vault folder that does not exist', async () => {
    expect(await createVaultIndex(path.join(tmpDir(), 'missing')).search('x', 10)).toEqual([]);
  });
});
