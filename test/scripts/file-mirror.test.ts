import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFileMirror } from '../../src/scripts/file-mirror.js';
import { hashSource } from '../../src/contracts/script-hashes.js';
import { maxSourceBytes } from '../../src/contracts/script-names.js';

let root: string;
let dir: string;

/** The most `readFile` calls in flight at once (the real one, counted). */
const reads = vi.hoisted(() => ({ inFlight: 0, most: 0 }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const readFile = (async (...args: Parameters<typeof fs.readFile>) => {
    reads.most = Math.max(reads.most, ++reads.inFlight);
    try {
      return await fs.readFile(...args);
    } finally {
      reads.inFlight--;
    }
  }) as typeof fs.readFile;
  return { ...fs, readFile, default: { ...fs, readFile } };
});

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'steward-mirror-'));
  dir = path.join(root, 'scripts');
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('file mirror', () => {
  it("hashes a file's text, and sees every change to it, even one that keeps size and times", async () => {
    const mirror = createFileMirror(dir);
    expect(await mirror.hash('a.star')).toBeNull();
    await mirror.write('a.star', 'result = 1\n');
    expect(await mirror.hash('a.star')).toBe(hashSource('result = 1\n'));
    expect(await mirror.hash('a.star')).toBe(hashSource('result = 1\n'));

    // Rewritten in place, same size, its modification time put back: the change time moved.
    const file = path.join(dir, 'a.star');
    const before = statSync(file);
    writeFileSync(file, 'result = 2\n');
    utimesSync(file, before.atime, before.mtime);
    expect(await mirror.hash('a.star')).toBe(hashSource('result = 2\n'));

    await mirror.write('a.star', 'result = 3\n');
    expect(await mirror.hash('a.star')).toBe(hashSource('result = 3\n'));
    await mirror.remove('a.star');
    expect(await mirror.hash('a.star')).toBeNull();
  });

  it('writes a script, creating the directory, and leaves no temporary file', async () => {
    const mirror = createFileMirror(dir);
    await mirror.write('a.star', 'result = 1\n');
    expect(await mirror.read('a.star')).toBe('result = 1\n');
    expect(readdirSync(dir)).toEqual(['a.star']);
    // 0644 at most (the umask may take more away): never executable, never writable by others.
    const mode = statSync(path.join(dir, 'a.star')).mode;
    expect(mode & 0o600).toBe(0o600);
    expect(mode & 0o133).toBe(0);
  });

  it('replaces a file whole on a second write', async () => {
    const mirror = createFileMirror(dir);
    await mirror.write('a.star', 'result = "a long first version"\n');
    await mirror.write('a.star', 'x = 2\n');
    expect(await mirror.read('a.star')).toBe('x = 2\n');
    expect(readdirSync(dir)).toEqual(['a.star']);
  });

  it('reads null for a missing file, and removing a missing file is not an error', async () => {
    const mirror = createFileMirror(dir);
    expect(await mirror.read('none.star')).toBeNull();
    await expect(mirror.remove('none.star')).resolves.toBeUndefined();
    await mirror.write('a.star', 'x = 1\n');
    await mirror.remove('a.star');
    expect(await mirror.read('a.star')).toBeNull();
  });

  it('refuses names that are not script names, so no path leaves the directory', async () => {
    const mirror = createFileMirror(dir);
    for (const name of ['../escape.star', 'a/b.star', '.hidden.star', 'a.txt', '-a.star']) {
      expect(() => mirror.fileOf(name)).toThrow(`not a script name: ${name}`);
      await expect(mirror.write(name, 'x = 1\n')).rejects.toThrow('not a script name');
      await expect(mirror.read(name)).rejects.toThrow('not a script name');
      await expect(mirror.remove(name)).rejects.toThrow('not a script name');
    }
    expect(mirror.fileOf('ok.star')).toBe(path.join(dir, 'ok.star'));
  });

  it('cleans up its temporary file when the rename fails', async () => {
    const mirror = createFileMirror(dir);
    // A directory where the file should go makes the rename fail after the temp file is written.
    mkdirSync(path.join(dir, 'a.star'), { recursive: true });
    writeFileSync(path.join(dir, 'a.star', 'keep'), '');
    await expect(mirror.write('a.star', 'x = 1\n')).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['a.star']);
  });

  it('scans nothing when the directory does not exist', async () => {
    expect(await createFileMirror(dir).scan()).toEqual({ files: [], skipped: [] });
  });

  it('scans .star files in name order and skips what cannot be a script, saying why', async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'b.star'), 'b = 1\n');
    writeFileSync(path.join(dir, 'a.star'), 'a = 1\n');
    writeFileSync(path.join(dir, 'notes.txt'), 'ignored');
    writeFileSync(path.join(dir, '.a.star.0123.tmp'), 'ignored');
    writeFileSync(path.join(dir, 'bad name.star'), 'x = 1\n');
    writeFileSync(path.join(dir, 'big.star'), 'x'.repeat(maxSourceBytes + 1));
    writeFileSync(path.join(dir, 'edge.star'), 'x'.repeat(maxSourceBytes));
    mkdirSync(path.join(dir, 'folder.star'));

    const scan = await createFileMirror(dir).scan();
    expect(scan.files.map((f) => f.name)).toEqual(['a.star', 'b.star', 'edge.star']);
    expect(scan.files[0]).toEqual({ name: 'a.star', source: 'a = 1\n' });
    expect(scan.skipped).toEqual([
      { name: 'bad name.star', message: 'not a valid script name' },
      { name: 'big.star', message: `larger than ${maxSourceBytes} bytes` },
    ]);
  });

  it('reports an unreadable file as skipped instead of failing the scan', async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'ok.star'), 'x = 1\n');
    // A dangling symlink: stat fails with ENOENT for this entry only.
    const { symlinkSync } = await import('node:fs');
    symlinkSync(path.join(root, 'missing'), path.join(dir, 'gone.star'));
    const scan = await createFileMirror(dir).scan();
    expect(scan.files.map((f) => f.name)).toEqual(['ok.star']);
    expect(scan.skipped).toHaveLength(1);
    expect(scan.skipped[0]).toMatchObject({ name: 'gone.star' });
    expect(scan.skipped[0]?.message).toMatch(/ENOENT/);
  });

  it('reads a directory of many scripts whole and in name order, several files at a time', async () => {
    mkdirSync(dir, { recursive: true });
    const names = Array.from({ length: 150 }, (_, i) => `s${String(i).padStart(3, '0')}.star`);
    // Written out of order, with one too large and one dangling link among them.
    for (const name of [...names].reverse()) writeFileSync(path.join(dir, name), `# ${name}\n`);
    writeFileSync(path.join(dir, 's050.star'), 'x'.repeat(maxSourceBytes + 1));
    rmSync(path.join(dir, 's100.star'));
    symlinkSync(path.join(root, 'missing'), path.join(dir, 's100.star'));

    reads.most = 0;
    const scan = await createFileMirror(dir).scan();
    expect(scan.files.map((f) => f.name)).toEqual(
      names.filter((n) => n !== 's050.star' && n !== 's100.star'),
    );
    expect(scan.files.every((f) => f.source === `# ${f.name}\n`)).toBe(true);
    expect(scan.skipped.map((f) => f.name)).toEqual(['s050.star', 's100.star']);
    // Several files are read at once, never so many that a large directory runs out of fds.
    expect(reads.most).toBeGreaterThan(1);
    expect(reads.most).toBeLessThanOrEqual(16);
  });
});
