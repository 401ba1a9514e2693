import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../../src/', import.meta.url));

/**
 * The packages a module loads at run time, following its relative imports through `src`
 * (type-only imports and exports are erased by tsc, so they load nothing).
 */
function packagesLoadedBy(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    const specifiers = text.matchAll(
      /^(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm,
    );
    for (const [, spec] of specifiers) {
      if (spec === undefined) continue;
      if (spec.startsWith('.'))
        visit(path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')));
      else packages.add(spec);
    }
  };
  visit(path.join(src, entry));
  return packages;
}

describe('script thread modules', () => {
  it('loads no package besides node builtins: each package adds to every new thread start', () => {
    // zod alone took about 60 ms of a thread's start (157–180 → 92–130 ms without it).
    for (const entry of ['run-task.ts', 'thread-entry.ts']) {
      const packages = [...packagesLoadedBy(`workers/script-runs/${entry}`)];
      expect(packages.filter((p) => !p.startsWith('node:'))).toEqual([]);
    }
  });
});
