import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeHeapOptions } from '../../../src/cli/node-options.js';
import {
  cacheFile,
  loadBundle,
  writeBundleCache,
} from '../../../src/workers/script-runs/bundle-loader.js';

const dist = path.resolve(__dirname, '../../../dist/workers/script-runs');

describe('bundle loader', () => {
  let dir: string;
  let bundle: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'steward-bundle-'));
    bundle = path.join(dir, 'b.bundle.cjs');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const source = (n: number) =>
    `const path = require('node:path');\n` +
    `exports.default = (x) => x * ${n};\n` +
    `exports.where = [path.basename(__filename), path.basename(__dirname), typeof module.exports];\n` +
    `exports.strict = (function () { return this; })() === undefined;\n`;

  it('loads a CommonJS bundle, then again from the code cache it wrote', () => {
    writeFileSync(bundle, source(2));
    const first = loadBundle(bundle);
    expect(first.cached).toBe(false);
    expect((first.exports.default as (x: number) => number)(21)).toBe(42);
    expect(first.exports.where).toEqual(['b.bundle.cjs', path.basename(dir), 'object']);
    // Strict, as the ES modules the bundle was made from.
    expect(first.exports.strict).toBe(true);
    expect(writeBundleCache(bundle, first)).toBe(cacheFile(bundle));
    const second = loadBundle(bundle);
    expect(second.cached).toBe(true);
    expect((second.exports.default as (x: number) => number)(21)).toBe(42);
    expect(loadBundle(bundle, false).cached).toBe(false);
  });

  it('never hands V8 a cache made from another source, even one of the same length', () => {
    // V8 itself checks only the length: it would run the old functions' bytecode.
    writeFileSync(bundle, source(2));
    writeBundleCache(bundle, loadBundle(bundle));
    writeFileSync(bundle, source(3));
    const changed = loadBundle(bundle);
    expect(changed.cached).toBe(false);
    expect((changed.exports.default as (x: number) => number)(21)).toBe(63);
  });

  it('keeps one cache per set of node options, since V8 takes a cache only under its own flags', () => {
    expect(cacheFile(bundle, [])).not.toBe(cacheFile(bundle, [...nodeHeapOptions]));
    expect(cacheFile(bundle, [])).toBe(cacheFile(bundle, []));
  });

  it("the build's thread bundle loads with its cache under node's defaults and Steward's options", () => {
    const built = path.join(dist, 'run-task.bundle.cjs');
    const probe = path.join(dir, 'probe.mjs');
    writeFileSync(
      probe,
      `const { loadBundle } = await import(${JSON.stringify(path.join(dist, 'bundle-loader.js'))});\n` +
        `const b = loadBundle(${JSON.stringify(built)});\n` +
        `console.log(JSON.stringify([b.cached, typeof b.exports.default]));\n`,
    );
    for (const options of [[], [...nodeHeapOptions]]) {
      expect(existsSync(cacheFile(built, options))).toBe(true);
      const out = execFileSync(process.execPath, [...options, probe], { encoding: 'utf8' });
      expect(JSON.parse(out)).toEqual([true, 'function']);
    }
  });
});
