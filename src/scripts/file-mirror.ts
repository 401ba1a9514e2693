import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { hashSource } from './hashing.js';
import { isScriptName, maxSourceBytes } from './script-schema.js';

export interface DiskScript {
  name: string;
  source: string;
}

export interface DiskScan {
  files: DiskScript[];
  /** Files that cannot be scripts (bad name, too large, unreadable), with the reason. */
  skipped: Array<{ name: string; message: string }>;
}

/**
 * `<workspace>/scripts/<name>`, a mirror of the store for people who edit with their own tools.
 * Writes go to a temporary file renamed over the target, so a reader (or a crash) never sees
 * half a script.
 */
export function createFileMirror(dir: string) {
  const fileOf = (name: string) => {
    if (!isScriptName(name)) throw new Error(`not a script name: ${name}`);
    return path.join(dir, name);
  };
  /**
   * Hashes of files already read, by what identifies one version of a file. Any write changes
   * the change time (ns), which user space cannot set, and our own writes (and the workspace
   * tools') replace the inode, so a changed file never matches an old entry.
   */
  const hashes = new Map<string, { key: string; hash: string }>();
  const maxHashes = 4096;

  return {
    dir,
    fileOf,

    async write(name: string, source: string): Promise<void> {
      await mkdir(dir, { recursive: true });
      const target = fileOf(name);
      const temp = path.join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
      try {
        await writeFile(temp, source, { encoding: 'utf8', mode: 0o644 });
        await rename(temp, target);
      } catch (err) {
        await rm(temp, { force: true });
        throw err;
      }
    },

    async remove(name: string): Promise<void> {
      await rm(fileOf(name), { force: true });
    },

    /** The file's text, or null when there is none. */
    async read(name: string): Promise<string | null> {
      try {
        return await readFile(fileOf(name), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },

    /**
     * `hashSource` of the file's text, or null when there is none. Each run checks the file
     * against its approval: one stat answers when the file has not changed since the last read.
     */
    async hash(name: string): Promise<string | null> {
      const file = fileOf(name);
      // Synchronous on purpose: a stat of a local file takes microseconds, while through libuv's
      // thread pool it costs two thread hand-offs and an event-loop wake-up per run (the caller
      // and the worker each check), most of its price on a busy machine.
      const key = statKey(file);
      if (key === null) return null;
      const known = hashes.get(name);
      if (known?.key === key) return known.hash;
      const source = await this.read(name);
      if (source === null) return null;
      const hash = hashSource(source);
      // Between the stat and the read the file may have changed again: keep the hash only when
      // it still matches the stat it is filed under.
      let after: string | null = null;
      try {
        after = statKey(file);
      } catch {
        // Unreadable now: the hash is answered but not kept.
      }
      if (after === key) {
        hashes.delete(name);
        if (hashes.size >= maxHashes) hashes.delete(hashes.keys().next().value as string);
        hashes.set(name, { key, hash });
      }
      return hash;
    },

    async scan(): Promise<DiskScan> {
      const scan: DiskScan = { files: [], skipped: [] };
      let entries: string[];
      try {
        entries = await readdir(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return scan;
        throw err;
      }
      for (const entry of entries.sort()) {
        if (!entry.endsWith('.star')) continue;
        if (!isScriptName(entry)) {
          scan.skipped.push({ name: entry, message: 'not a valid script name' });
          continue;
        }
        const file = path.join(dir, entry);
        try {
          const info = await stat(file);
          if (!info.isFile()) continue;
          if (info.size > maxSourceBytes) {
            scan.skipped.push({ name: entry, message: `larger than ${maxSourceBytes} bytes` });
            continue;
          }
          scan.files.push({ name: entry, source: await readFile(file, 'utf8') });
        } catch (err) {
          scan.skipped.push({ name: entry, message: (err as Error).message });
        }
      }
      return scan;
    },
  };
}

export type FileMirror = ReturnType<typeof createFileMirror>;

/**
 * What identifies one version of a file without reading it (device, inode, size, ns modification
 * and change times: no write keeps them all), or null when there is no file.
 */
function statKey(file: string): string | null {
  const info = statSync(file, { bigint: true, throwIfNoEntry: false });
  return info ? `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}` : null;
}
