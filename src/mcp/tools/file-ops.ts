import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import {
  mkdir,
  open,
  readdir,
  realpath,
  rename,
  stat,
  unlink,
  type FileHandle,
} from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../../errors/tool-error.js';
import { relativeTo, resolveInside } from './paths.js';

/** Files larger than this are cut, so one read cannot flood the AI's context. */
export const maxReadBytes = 1024 * 1024;
export const maxListEntries = 1000;

/** The named file is not there; callers for which absence is normal can tell it apart. */
export class MissingFileError extends ToolError {
  override name = 'MissingFileError';
}

export interface Root {
  dir: string;
  label: string;
  createRoot?: boolean;
}

/** File-system failures the AI can act on, worded for it; anything else stays an internal error. */
export async function fsGuard<T>(userPath: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code ? fsReasons[code] : undefined;
    if (reason) throw new ToolError(`${userPath}: ${reason}`);
    throw err;
  }
}

const fsReasons: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is a file, not a folder',
  ENOENT: 'does not exist',
  ENOSPC: 'no space left on the disk',
  EROFS: 'the file system is read-only',
  ENAMETOOLONG: 'the name is too long',
  EEXIST: 'already exists',
};

export function readText(root: Root, userPath: string): Promise<string> {
  return fsGuard(userPath, () => readTextUnguarded(root, userPath));
}

/**
 * Git's own files are off limits: a hook written under .git runs on the next commit, and
 * .git/config may hold a remote URL with a token. Checked on the real path, so links count too.
 */
async function resolveOutsideGit(root: Root, userPath: string): Promise<string> {
  const real = await resolveInside(root.dir, userPath, root);
  const rel = path.relative(await realpath(root.dir), real);
  if (rel.split(path.sep).some((segment) => segment.toLowerCase() === '.git')) {
    throw new ToolError(
      `path refused: "${userPath}" is inside a .git folder, which tools may not touch`,
    );
  }
  return real;
}

/**
 * The checks made on an opened file, which a swap after the path check cannot escape: a regular
 * file, one link only (a hard link would reach a file outside the root under an inside name), and
 * where Linux tells it (/proc/self/fd), a real path still inside the root (a parent directory
 * swapped for a symbolic link between the check and the open would lead elsewhere).
 */
export async function assertOpenedInside(
  handle: FileHandle,
  root: Root,
  userPath: string,
): Promise<{ size: number }> {
  const info = await handle.stat();
  if (!info.isFile()) throw new ToolError(`${userPath} is not a regular file`);
  if (info.nlink > 1) {
    throw new ToolError(
      `${userPath} has other hard links, which could lead outside the ${root.label}; tools only touch files with one link`,
    );
  }
  const opened = await realpath(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
  if (opened !== undefined) {
    const rel = path.relative(await realpath(root.dir), opened);
    if (rel.startsWith('..') || path.isAbsolute(rel)) {
      throw new ToolError(
        `path refused: "${userPath}" led outside the ${root.label} as it was opened`,
      );
    }
  }
  return { size: info.size };
}

async function readTextUnguarded(root: Root, userPath: string): Promise<string> {
  const file = await resolveOutsideGit(root, userPath);
  const info = await stat(file).catch(() => undefined);
  if (!info) throw new MissingFileError(`${userPath} does not exist in the ${root.label}`);
  if (info.isDirectory())
    throw new ToolError(`${userPath} is a directory; use the list tool to see its entries`);
  if (!info.isFile()) throw new ToolError(`${userPath} is not a regular file`);
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW).catch(
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ELOOP')
        throw new ToolError(`${userPath} became a symbolic link; try again`);
      throw err;
    },
  );
  try {
    await assertOpenedInside(handle, root, userPath);
    const buffer = Buffer.alloc(Math.min(info.size, maxReadBytes));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const data = buffer.subarray(0, bytesRead);
    if (data.includes(0))
      throw new ToolError(`${userPath} is a binary file; only text files can be read`);
    const text = data.toString('utf8');
    return info.size > maxReadBytes
      ? `${text}\n\n[truncated: showing the first ${maxReadBytes} of ${info.size} bytes]`
      : text;
  } finally {
    await handle.close();
  }
}

/** Refuses text that came back redacted: writing it would replace a real value with a marker. */
export function assertNoRedaction(content: string): void {
  if (content.includes('[REDACTED:')) {
    throw new ToolError(
      'content refused: it contains a [REDACTED:…] marker, which stands for a secret that was hidden from you; writing it would destroy the original value',
    );
  }
}

export interface WriteOptions {
  append?: boolean;
  /** Told the real path once it passed the checks, before anything is written; may refuse. */
  beforeWrite?: (file: string) => Promise<void>;
}

/** Writes a text file, creating parent directories; returns the real path written. */
export function writeText(
  root: Root,
  userPath: string,
  content: string,
  options: WriteOptions = {},
): Promise<string> {
  return fsGuard(userPath, () => writeTextUnguarded(root, userPath, content, options));
}

async function writeTextUnguarded(
  root: Root,
  userPath: string,
  content: string,
  options: WriteOptions,
): Promise<string> {
  assertNoRedaction(content);
  const file = await resolveOutsideGit(root, userPath);
  const info = await stat(file).catch(() => undefined);
  if (info?.isDirectory()) throw new ToolError(`${userPath} is a directory, not a file`);
  await options.beforeWrite?.(file);
  await mkdir(path.dirname(file), { recursive: true });
  const onLink = (err: NodeJS.ErrnoException): never => {
    if (err.code === 'ELOOP')
      throw new ToolError(`${userPath} is a symbolic link; write to its target instead`);
    throw err;
  };
  if (options.append) {
    // Appending keeps the file: opened without following a link, checked on the descriptor
    // before a byte is written.
    const flags =
      constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW;
    const handle = await open(file, flags, 0o644).catch(onLink);
    try {
      await assertOpenedInside(handle, root, userPath);
      await handle.writeFile(content, 'utf8');
    } finally {
      await handle.close();
    }
    return file;
  }
  // A rewrite goes to a new file renamed over the old name: truncating in place would write
  // through a hard link (or a file swapped in after the checks) into whatever it points at.
  const existing = await stat(file).catch(() => undefined);
  if (existing && existing.nlink > 1) {
    throw new ToolError(
      `${userPath} has other hard links, which could lead outside the ${root.label}; tools only touch files with one link`,
    );
  }
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`,
  );
  const handle = await open(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    existing ? existing.mode & 0o777 : 0o644,
  ).catch(onLink);
  try {
    try {
      await assertOpenedInside(handle, root, userPath);
      await handle.writeFile(content, 'utf8');
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw err;
  }
  return file;
}

export interface ListOptions {
  recursive?: boolean;
  /** Skip names starting with a dot (the vault's .git, editor folders). */
  hideDotfiles?: boolean;
}

/** Entries relative to the listed directory, directories with a trailing `/`. */
export function listEntries(
  root: Root,
  userPath: string,
  options: ListOptions = {},
): Promise<string> {
  return fsGuard(userPath, () => listEntriesUnguarded(root, userPath, options));
}

async function listEntriesUnguarded(
  root: Root,
  userPath: string,
  options: ListOptions,
): Promise<string> {
  const dir = await resolveOutsideGit(root, userPath);
  const info = await stat(dir).catch(() => undefined);
  if (!info) throw new MissingFileError(`${userPath} does not exist in the ${root.label}`);
  if (!info.isDirectory()) throw new ToolError(`${userPath} is a file; use the read tool`);
  const out: string[] = [];
  let truncated = false;
  const walk = async (current: string): Promise<void> => {
    const entries = (await readdir(current, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    );
    for (const entry of entries) {
      if (options.hideDotfiles && entry.name.startsWith('.')) continue;
      if (entry.name.toLowerCase() === '.git') continue;
      if (out.length >= maxListEntries) {
        truncated = true;
        return;
      }
      const full = path.join(current, entry.name);
      const rel = relativeTo(dir, full);
      // Symlinked directories are listed but not entered, so a walk cannot leave the root or loop.
      out.push(entry.isDirectory() ? `${rel}/` : rel);
      if (options.recursive && entry.isDirectory()) await walk(full);
    }
  };
  await walk(dir);
  if (out.length === 0) return '(empty)';
  return truncated ? `${out.join('\n')}\n[truncated at ${maxListEntries} entries]` : out.join('\n');
}
