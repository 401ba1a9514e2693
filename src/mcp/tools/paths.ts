import { lstat, mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../../errors/tool-error.js';

export interface ResolveOptions {
  /** Names the root in messages ("workspace", "vault"). */
  label: string;
  /** Create the root if it is missing (workspace and memory start empty). */
  createRoot?: boolean;
}

/**
 * Resolves a user-given path inside `root`, following symlinks, and refuses anything that
 * could leave it. The returned path is real (symlink-free) up to the nearest existing ancestor.
 */
export async function resolveInside(
  root: string,
  userPath: string,
  options: ResolveOptions,
): Promise<string> {
  const { label } = options;
  if (userPath.includes('\0')) throw new ToolError(`path refused: it contains a NUL byte`);
  if (/%(2e|2f|5c|00)/i.test(userPath)) {
    throw new ToolError(
      `path refused: "${userPath}" contains percent-encoded path characters (such as %2e or %2f); use plain characters`,
    );
  }
  const segments = userPath.split(/[\\/]+/);
  if (segments.includes('..')) {
    throw new ToolError(
      `path refused: "${userPath}" contains a ".." segment; give a path inside the ${label}`,
    );
  }
  // A name such as `--amend` would reach git (vault commits) as an option; no tool needs one.
  const dashed = segments.find((segment) => segment.startsWith('-'));
  if (dashed !== undefined) {
    throw new ToolError(
      `path refused: "${userPath}" has a segment starting with "-" ("${dashed}"); rename it without the leading dash`,
    );
  }
  const realRoot = await rootReal(root, options);
  let candidate: string;
  if (path.isAbsolute(userPath)) {
    const lexical = path.resolve(userPath);
    const base = within(path.resolve(root), lexical)
      ? path.resolve(root)
      : within(realRoot, lexical)
        ? realRoot
        : undefined;
    if (base === undefined) {
      throw new ToolError(
        `path refused: "${userPath}" is outside the ${label}; use a path relative to the ${label} root`,
      );
    }
    candidate = path.join(realRoot, path.relative(base, lexical));
  } else {
    candidate = path.resolve(realRoot, userPath);
  }
  const real = await realNearest(candidate, userPath);
  if (!within(realRoot, real)) {
    throw new ToolError(
      `path refused: "${userPath}" leads outside the ${label} through a symbolic link`,
    );
  }
  return real;
}

/** The path relative to the root, with `/` separators, for messages and listings. */
export function relativeTo(root: string, real: string): string {
  return path.relative(root, real).split(path.sep).join('/') || '.';
}

async function rootReal(root: string, options: ResolveOptions): Promise<string> {
  if (options.createRoot) await mkdir(root, { recursive: true });
  try {
    return await realpath(root);
  } catch {
    throw new ToolError(`the ${options.label} root ${root} does not exist`);
  }
}

/** realpath of the nearest existing ancestor, plus the segments that do not exist yet. */
async function realNearest(candidate: string, userPath: string): Promise<string> {
  const rest: string[] = [];
  let current = candidate;
  while (true) {
    try {
      return path.join(await realpath(current), ...rest);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    // A dangling symlink would be followed by a later write: its target is unknown, so refuse.
    const stat = await lstat(current).catch(() => undefined);
    if (stat?.isSymbolicLink()) {
      throw new ToolError(
        `path refused: "${userPath}" goes through a symbolic link whose target does not exist`,
      );
    }
    const parent = path.dirname(current);
    if (parent === current) return candidate;
    rest.unshift(path.basename(current));
    current = parent;
  }
}

function within(root: string, target: string): boolean {
  if (target === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return target.startsWith(prefix);
}
