// Time from `steward start` to the first `200 OK` of /healthz, and from SIGTERM to exit,
// against a private redis-server; baseline: a bare `node -e ''` start on the same machine.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { freePort, sleep, startRedis, stewardEnv } from './lib.mjs';
import os from 'node:os';
import path from 'node:path';

const cli = new URL('../dist/cli/main.js', import.meta.url).pathname;

const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-bench-startup-'));
const redis = await startRedis(dir);

const bare = [];
for (let i = 0; i < 3; i++) {
  const t = performance.now();
  spawnSync(process.execPath, ['-e', '']);
  bare.push(performance.now() - t);
}

const runs = [];
for (let i = 0; i < 3; i++) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [cli, 'start'], {
    cwd: dir,
    // Steward's own footprint: the engine it would supervise is a process of its own.
    env: stewardEnv({ dir, redisUrl: redis.url, port, STEWARD_ENGINE_AUTOSTART: 'false' }),
    stdio: 'ignore',
  });
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await sleep(20);
  }
  const up = performance.now() - started;
  const exited = new Promise((r) => child.once('exit', r));
  const killed = performance.now();
  child.kill('SIGTERM');
  await exited;
  runs.push({ up, down: performance.now() - killed });
}
redis.stop();
rmSync(dir, { recursive: true, force: true });
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(bare);
const up = median(runs.map((r) => r.up));
const down = median(runs.map((r) => r.down));
console.log('| measure | ms | × bare node start |');
console.log('|---|---:|---:|');
console.log(`| bare node start | ${base.toFixed(0)} | 1.0 |`);
console.log(`| steward start → /healthz OK | ${up.toFixed(0)} | ${(up / base).toFixed(1)} |`);
console.log(`| SIGTERM → exit | ${down.toFixed(0)} | ${(down / base).toFixed(1)} |`);
