import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeHeapOptions } from '../../src/cli/node-options.js';

const root = new URL('../../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');
const options = nodeHeapOptions.join(' ');

describe("the heap options Steward's server processes start with", () => {
  it('are given to node by `npm start`, the `steward` shebang and the Docker entrypoint', () => {
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe(`node ${options} dist/cli/main.js start`);
    // The script-run bench serves its in-process runs as `steward start` does.
    expect(pkg.scripts['bench:scripts']).toContain(`node ${options} bench/scripts.mjs`);
    expect(read('src/cli/main.ts').split('\n')[0]).toBe(`#!/usr/bin/env -S node ${options}`);
    const entrypoint = /^ENTRYPOINT (.*)$/m.exec(read('Dockerfile'))?.[1];
    expect(JSON.parse(entrypoint ?? 'null')).toEqual([
      'tini',
      '--',
      'node',
      ...nodeHeapOptions,
      '/app/dist/cli/main.js',
    ]);
  });

  it('are options this node accepts, and leave each script thread its own young generation', () => {
    // V8 lets --max-semi-space-size override the young generation a worker thread is given
    // (`threadYoungGenerationMb`), so the process must not set it (pool-heap.test.ts).
    expect(nodeHeapOptions.some((o) => o.startsWith('--max-semi-space-size'))).toBe(false);
    const res = spawnSync(process.execPath, [...nodeHeapOptions, '-e', 'console.log(1)'], {
      encoding: 'utf8',
    });
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
  });
});
