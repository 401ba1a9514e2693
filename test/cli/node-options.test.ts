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

  it("are options this node accepts, and cap the main thread's young generation", () => {
    const res = spawnSync(
      process.execPath,
      [
        ...nodeHeapOptions,
        '-e',
        // Enough live objects to grow the young generation to its cap (16 MB semi-spaces, 32 MB
        // in all, without the options).
        "const a = []; for (let i = 0; i < 3e6; i++) a.push({ i }); const s = require('v8').getHeapSpaceStatistics().find((x) => x.space_name === 'new_space'); console.log(s.space_size)",
      ],
      { encoding: 'utf8' },
    );
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    // Two semi-spaces of the size the options give.
    const semiMb = Number(/^--max-semi-space-size=(\d+)$/.exec(nodeHeapOptions[0])?.[1]);
    expect(semiMb).toBeGreaterThan(0);
    expect(semiMb).toBeLessThan(16);
    expect(Number(res.stdout)).toBeLessThanOrEqual(2 * semiMb * 1024 * 1024);
  });
});
