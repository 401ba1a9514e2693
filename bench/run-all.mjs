// Runs every benchmark in turn (each prints its own table with ratios against its baseline).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const benches = [
  'startup',
  'footprint',
  'starlark',
  'redact',
  'scripts',
  'soak',
  'soak-pool',
  'shutdown',
  'mcp',
  'engine',
  'schedules',
  'audit',
];
let failed = 0;
for (const name of benches) {
  const file = new URL(`./${name}.mjs`, import.meta.url);
  if (!existsSync(file)) continue;
  process.stdout.write(`\n=== bench:${name}\n`);
  const result = spawnSync(process.execPath, [file.pathname], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
