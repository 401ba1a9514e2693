import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The OpenCode binary `steward start` supervises when neither `engine.url` nor `engine.command`
 * is set: the one of the installed `opencode-ai` package, else `opencode` on PATH; null when
 * there is none.
 */
export function findOpencode(envPath: string): string | null {
  try {
    const manifest = createRequire(import.meta.url).resolve('opencode-ai/package.json');
    const bin = path.join(path.dirname(manifest), 'bin', 'opencode.exe');
    if (executable(bin)) return bin;
  } catch {
    // not installed: look on PATH
  }
  for (const dir of envPath.split(path.delimiter).filter(Boolean)) {
    const bin = path.join(dir, 'opencode');
    if (executable(bin)) return bin;
  }
  return null;
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
