import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { hashSource } from '../contracts/script-hashes.js';
import { isScriptName, maxSourceBytes } from '../contracts/script-names.js';

export interface DiskScript {
  name: string;
  source: string;
}

export interface SkippedFile {
  name: string;
  message: string;
}

export interface DiskScan {
  files: DiskScript[];
  /** Files that cannot be scripts (bad name, too large, unreadable), with the reason. */
  skipped: SkippedFile[];
}

/** Files a scan reads at once. */
const scanReaders = 16;

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

  /** A script file's text, why it cannot be one, or null for what is not a file. */
  const readScript = async (name: string): Promise<DiskScript | SkippedFile | null> => {
    const file = path.join(dir, name);
    try {
      const info = await stat(file);
      if (!info.isFile()) return null;
      if (info.size > maxSourceBytes)
        return { name, message: `larger than ${maxSourceBytes} bytes` };
      return { name, source: await readFile(file, 'utf8') };
    } catch (err) {
      return { name, message: (err as Error).message };
    }
  };

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
      const names: string[] = [];
      for (const entry of entries.sort()) {
        if (!entry.endsWith('.star')) continue;
        if (isScriptName(entry)) names.push(entry);
        else scan.skipped.push({ name: entry, message: 'not a valid script name' });
      }
      // Read a few at a time (every role scans at start): one after another, each file's stat,
      // open, read and close were a wait on the thread pool apiece; all at once could run a
      // directory of thousands out of file descriptors.
      const found = new Array<DiskScript | SkippedFile | null>(names.length);
      let next = 0;
      const reader = async () => {
        for (let i = next++; i < names.length; i = next++) found[i] = await readScript(names[i]!);
      };
      await Promise.all(Array.from({ length: Math.min(scanReaders, names.length) }, reader));
      for (const item of found) {
        if (!item) continue;
        if ('source' in item) scan.files.push(item);
        else scan.skipped.push(item);
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
