import { execFileSync } from 'node:child_process';
import {
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { open } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/errors/tool-error.js';
import {
  assertNoRedaction,
  assertOpenedInside,
  fsGuard,
  listEntries,
  maxReadBytes,
  MissingFileError,
  readText,
  writeText,
  type Root,
} from '../../../src/mcp/tools/file-ops.js';
import { tmpDir } from './tool-context.js';

function root(): Root & { dir: string } {
  return { dir: realpathSync(tmpDir('steward-files-')), label: 'workspace' };
}

describe('readText', () => {
  it('reads a text file', async () => {
    const r = root();
    writeFileSync(path.join(r.dir, 'a.md'), 'héllo');
    expect(await readText(r, 'a.md')).toBe('héllo');
  });

  it('cuts a file past 1 MiB with a note, and reads one of exactly 1 MiB whole', async () => {
    const r = root();
    writeFileSync(path.join(r.dir, 'exact.txt'), 'a'.repeat(maxReadBytes));
    expect(await readText(r, 'exact.txt')).toHaveLength(maxReadBytes);
    writeFileSync(path.join(r.dir, 'big.txt'), 'b'.repeat(maxReadBytes + 10));
    const out = await readText(r, 'big.txt');
    expect(out.startsWith('b'.repeat(maxReadBytes))).toBe(true);
    expect(
      out.endsWith(
        `\n\n[truncated: showing the first ${maxReadBytes} of ${maxReadBytes + 10} bytes]`,
      ),
    ).toBe(true);
  });

  it('tells a missing file apart, so callers for which absence is normal can catch it', async () => {
    const err = await readText(root(), 'none.md').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MissingFileError);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as Error).message).toBe('none.md does not exist in the workspace');
  });

  it('refuses binary files, folders and special files without opening them', async () => {
    const r = root();
    writeFileSync(path.join(r.dir, 'bin'), Buffer.from([0x41, 0, 0x42]));
    await expect(readText(r, 'bin')).rejects.toThrow(
      'bin is a binary file; only text files can be read',
    );
    mkdirSync(path.join(r.dir, 'dir'));
    await expect(readText(r, 'dir')).rejects.toThrow(/is a directory; use the list tool/);
    // Opening a FIFO would block the tool server until something writes to it.
    execFileSync('mkfifo', [path.join(r.dir, 'pipe')]);
    await expect(readText(r, 'pipe')).rejects.toThrow('pipe is not a regular file');
  });

  it('refuses git internals at any depth and in any case, but not files merely named like git', async () => {
    const r = root();
    mkdirSync(path.join(r.dir, 'sub', '.GIT'), { recursive: true });
    writeFileSync(path.join(r.dir, 'sub', '.GIT', 'config'), '[remote]');
    await expect(readText(r, 'sub/.GIT/config')).rejects.toThrow(/inside a \.git folder/);
    await expect(writeText(r, '.git/hooks/pre-commit', 'rm -rf ~')).rejects.toThrow(/\.git folder/);
    writeFileSync(path.join(r.dir, '.gitignore'), 'node_modules');
    expect(await readText(r, '.gitignore')).toBe('node_modules');
  });

  it('refuses a path leaving the root', async () => {
    const r = root();
    const outside = tmpDir('steward-outside-');
    writeFileSync(path.join(outside, 'secret'), 'x');
    symlinkSync(outside, path.join(r.dir, 'out'));
    for (const p of ['../secret', 'out/secret', path.join(outside, 'secret')]) {
      await expect(readText(r, p), p).rejects.toBeInstanceOf(ToolError);
    }
  });
});

describe('assertOpenedInside', () => {
  // What a parent directory swapped for a link between the path check and the open yields: a
  // descriptor whose file lies elsewhere. Checked on the descriptor itself, so no race is needed.
  it('refuses a descriptor that leads outside the root, whatever name was asked for', async () => {
    const r = root();
    const outside = tmpDir('steward-swapped-');
    writeFileSync(path.join(outside, 'secrets_key'), 'key');
    writeFileSync(path.join(r.dir, 'notes.md'), 'fine');
    const escaped = await open(path.join(outside, 'secrets_key'), 'r');
    const inside = await open(path.join(r.dir, 'notes.md'), 'r');
    try {
      await expect(assertOpenedInside(escaped, r, 'notes.md')).rejects.toThrow(
        'path refused: "notes.md" led outside the workspace as it was opened',
      );
      await expect(assertOpenedInside(inside, r, 'notes.md')).resolves.toEqual({ size: 4 });
    } finally {
      await escaped.close();
      await inside.close();
    }
  });
});

describe('writeText', () => {
  it('creates parent folders, replaces by default and appends on request', async () => {
    const r = root();
    const written = await writeText(r, 'a/b/c.md', 'one\n');
    expect(written).toBe(path.join(r.dir, 'a', 'b', 'c.md'));
    await writeText(r, 'a/b/c.md', 'two\n', { append: true });
    expect(readFileSync(written, 'utf8')).toBe('one\ntwo\n');
    await writeText(r, 'a/b/c.md', 'three');
    expect(readFileSync(written, 'utf8')).toBe('three');
  });

  it('refuses files with other hard links, which could lead outside the root', async () => {
    const r = root();
    const outside = path.join(tmpDir('steward-outside-'), 'secrets_key');
    writeFileSync(outside, 'the real key');
    linkSync(outside, path.join(r.dir, 'innocent.txt'));
    await expect(readText(r, 'innocent.txt')).rejects.toThrow(/has other hard links/);
    await expect(writeText(r, 'innocent.txt', 'overwritten')).rejects.toThrow(/hard links/);
    await expect(writeText(r, 'innocent.txt', 'more', { append: true })).rejects.toThrow(
      /hard links/,
    );
    expect(readFileSync(outside, 'utf8')).toBe('the real key');
  });

  it('replaces a file through a new one renamed over it, keeping its mode and leaving no temp file', async () => {
    const r = root();
    const file = path.join(r.dir, 'notes.md');
    writeFileSync(file, 'old', { mode: 0o600 });
    await writeText(r, 'notes.md', 'new');
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(r.dir)).toEqual(['notes.md']);
  });

  it('writes through a link that stays inside to the file it names', async () => {
    const r = root();
    writeFileSync(path.join(r.dir, 'target.md'), 'old');
    symlinkSync(path.join(r.dir, 'target.md'), path.join(r.dir, 'alias.md'));
    expect(await writeText(r, 'alias.md', 'new')).toBe(path.join(r.dir, 'target.md'));
    expect(readFileSync(path.join(r.dir, 'target.md'), 'utf8')).toBe('new');
  });

  it('refuses content holding a redaction marker', async () => {
    const r = root();
    await expect(writeText(r, 'x.md', 'token: [REDACTED:GITHUB_TOKEN]')).rejects.toThrow(
      /contains a \[REDACTED:…\] marker/,
    );
    expect(() => assertNoRedaction('plain [REDACTED] text')).not.toThrow();
  });

  it('refuses to replace a folder', async () => {
    const r = root();
    mkdirSync(path.join(r.dir, 'notes'));
    await expect(writeText(r, 'notes', 'x')).rejects.toThrow('notes is a directory, not a file');
  });

  it('explains a path running through a file', async () => {
    const r = root();
    writeFileSync(path.join(r.dir, 'plain.txt'), 'x');
    await expect(writeText(r, 'plain.txt/child.md', 'x')).rejects.toThrow(
      'plain.txt/child.md: a part of the path is a file, not a folder',
    );
  });
});

describe('fsGuard', () => {
  it('words file-system errors for the AI and lets anything else through', async () => {
    const enospc = Object.assign(new Error('raw'), { code: 'ENOSPC' });
    await expect(fsGuard('a.md', () => Promise.reject(enospc))).rejects.toThrow(
      new ToolError('a.md: no space left on the disk'),
    );
    const bug = new TypeError('not a file-system error');
    await expect(fsGuard('a.md', () => Promise.reject(bug))).rejects.toBe(bug);
    const odd = Object.assign(new Error('raw'), { code: 'EWEIRD' });
    await expect(fsGuard('a.md', () => Promise.reject(odd))).rejects.toBe(odd);
  });
});

describe('listEntries', () => {
  function tree() {
    const r = root();
    mkdirSync(path.join(r.dir, 'b', 'deep'), { recursive: true });
    mkdirSync(path.join(r.dir, '.obsidian'));
    mkdirSync(path.join(r.dir, '.git'));
    writeFileSync(path.join(r.dir, 'a.md'), '');
    writeFileSync(path.join(r.dir, 'b', 'deep', 'z.md'), '');
    writeFileSync(path.join(r.dir, '.hidden.md'), '');
    return r;
  }

  it('lists sorted entries with folders marked, leaving .git out', async () => {
    const r = tree();
    expect(await listEntries(r, '.')).toBe('.hidden.md\n.obsidian/\na.md\nb/');
    expect(await listEntries(r, '.', { hideDotfiles: true })).toBe('a.md\nb/');
  });

  it('walks sub-folders with paths relative to the listed folder', async () => {
    const r = tree();
    expect(await listEntries(r, 'b', { recursive: true })).toBe('deep/\ndeep/z.md');
  });

  it('lists a linked folder without entering it, so a walk cannot loop or leave the root', async () => {
    const r = tree();
    symlinkSync(r.dir, path.join(r.dir, 'b', 'loop'));
    symlinkSync(tmpDir('steward-outside-'), path.join(r.dir, 'b', 'away'));
    expect(await listEntries(r, 'b', { recursive: true })).toBe('away\ndeep/\ndeep/z.md\nloop');
  });

  it('explains a missing folder and a file given as a folder', async () => {
    const r = tree();
    await expect(listEntries(r, 'nope')).rejects.toBeInstanceOf(MissingFileError);
    await expect(listEntries(r, 'a.md')).rejects.toThrow('a.md is a file; use the read tool');
    await expect(listEntries(r, '.git')).rejects.toThrow(/\.git folder/);
  });
});
