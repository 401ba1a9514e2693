import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The compiled reaper (`engine-reaper.ts`), which needs JavaScript: beside this file once built;
 * run from the TypeScript sources (vitest), the same file under `dist/` (build first).
 */
export function reaperFile(): string {
  const here = fileURLToPath(import.meta.url);
  if (!here.endsWith('.ts')) return path.join(path.dirname(here), 'engine-reaper.js');
  const marker = `${path.sep}src${path.sep}`;
  const at = here.lastIndexOf(marker);
  const compiled = path.join(here.slice(0, at), 'dist', 'engine', 'engine-reaper.js');
  if (at < 0 || !existsSync(compiled)) {
    throw new Error(`${compiled} does not exist: run \`npm run build\` first`);
  }
  return compiled;
}

/** A reaper holds almost nothing: a small heap keeps its footprint near Node's floor. */
const REAPER_NODE_OPTIONS = ['--max-old-space-size=16', '--max-semi-space-size=1'];

/** The command line that runs `engine` under a reaper ending it `graceMs` after SIGTERM. */
export function reaperCommand(graceMs: number, engine: readonly string[]): string[] {
  return [process.execPath, ...REAPER_NODE_OPTIONS, reaperFile(), String(graceMs), ...engine];
}
