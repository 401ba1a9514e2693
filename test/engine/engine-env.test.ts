import { openSync, readSync, closeSync, realpathSync, fstatSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockdownEngineEnv, offlineEngineEnv } from '../../src/engine/engine-env.js';

const opencodeBin = realpathSync(
  path.resolve(import.meta.dirname, '../../node_modules/.bin/opencode'),
);

/** Which of `needles` occur in the file, read in slices so a 180 MB binary is never held whole. */
function occurring(file: string, needles: string[]): Set<string> {
  const found = new Set<string>();
  const overlap = Math.max(...needles.map((n) => n.length));
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const slice = Buffer.alloc(8 * 1024 * 1024 + overlap);
    for (let at = 0; at < size; at += slice.length - overlap) {
      const read = readSync(fd, slice, 0, slice.length, at);
      const view = slice.subarray(0, read);
      for (const needle of needles)
        if (!found.has(needle) && view.includes(needle)) found.add(needle);
      if (found.size === needles.length) break;
    }
  } finally {
    closeSync(fd);
  }
  return found;
}

describe('engine environment', () => {
  it('keeps the lockdown apart from the switches an admin may turn back on', () => {
    // The supervisor applies engine.env between the two, so a shared name would let the
    // admin's value win over the lockdown or the lockdown silently override the admin.
    const shared = Object.keys(lockdownEngineEnv).filter((name) => name in offlineEngineEnv);
    expect(shared).toEqual([]);
    expect(lockdownEngineEnv).toHaveProperty('OPENCODE_DISABLE_PROJECT_CONFIG', '1');
  });

  it('names only switches the bundled OpenCode actually reads', () => {
    // A switch renamed upstream would be ignored without a sound; the binary holds the names.
    const names = [...Object.keys(offlineEngineEnv), ...Object.keys(lockdownEngineEnv)];
    const found = occurring(opencodeBin, names);
    expect(names.filter((name) => !found.has(name))).toEqual([]);
    expect(occurring(opencodeBin, ['OPENCODE_DISABLE_NO_SUCH_SWITCH']).size).toBe(0);
  });
});
