import { realpathSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors/config-error.js';

export interface ToolRoots {
  data: string;
  workspace: string;
  memory: string;
  vault?: string;
}

/** The real path of `p` where it exists, else of its nearest existing ancestor plus the rest. */
function real(p: string): string {
  const rest: string[] = [];
  let current = path.resolve(p);
  for (;;) {
    try {
      return path.join(realpathSync(current), ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return path.join(current, ...rest.reverse());
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

const inside = (child: string, root: string) => {
  const rel = path.relative(root, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/**
 * The file tools (workspace, memory, vault) may read and write anything under their roots, so
 * Steward's own secrets must lie outside every one of them: the data dir holds the secrets key,
 * the JWT secret, the setup token and the embedded Redis files; the vault's `.git` may hold a
 * remote URL with a token. Refused at start-up, naming both paths, rather than discovered when
 * `workspace_read data/secrets_key` returns the key.
 */
export function assertSafeLayout(paths: ToolRoots): void {
  const roots: Array<[string, string]> = [
    ['workspace', paths.workspace],
    ['memory dir', paths.memory],
    ...(paths.vault ? [['vault', paths.vault] as [string, string]] : []),
  ];
  const guarded: Array<[string, string]> = [
    ['data_dir', paths.data],
    ...(paths.vault
      ? [["the vault's .git", path.join(paths.vault, '.git')] as [string, string]]
      : []),
  ];
  for (const [what, guardedPath] of guarded) {
    for (const [rootName, root] of roots) {
      // The vault's own tools refuse its .git; only the other roots must not contain it.
      if (rootName === 'vault' && what === "the vault's .git") continue;
      if (inside(real(guardedPath), real(root))) {
        throw new ConfigError(
          `${what} (${guardedPath}) lies inside the ${rootName} (${root}), where the file tools could read it; move one of them so that neither contains the other`,
        );
      }
    }
  }
}
