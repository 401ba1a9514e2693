// Time from `steward start` to the first `200 OK` of /healthz, and from SIGTERM to exit,
// against a private redis-server; baseline: a bare `node -e ''` start on the same machine. Then
// the same with BENCH_SCRIPTS (300) scripts in the workspace: every start compares each file
// with its record before it answers, and the first one imports them all.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

/**
 * One `steward start`: how long until /healthz answers and, with `serving`, until the API has
 * taken over; then from SIGTERM until it exits (once serving, with the shutdown grace set to 0: a
 * started API keeps answering 503s for 3 s, on purpose, for a load balancer to notice).
 */
async function startOnce({ serving: waitServing = false } = {}) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [cli, 'start'], {
    cwd: dir,
    // Steward's own footprint: the engine it would supervise is a process of its own.
    env: stewardEnv({
      dir,
      redisUrl: redis.url,
      port,
      STEWARD_ENGINE_AUTOSTART: 'false',
      ...(waitServing ? { STEWARD_SHUTDOWN_GRACE: '0' } : {}),
    }),
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
  // /healthz is answered by the port's standby from the first moments; the API itself takes
  // over once its stores are built and the scripts on disk compared (/ready is then past
  // `starting`: here it waits for the admin's setup).
  for (; waitServing;) {
    const reason = await fetch(`http://127.0.0.1:${port}/ready`).then(
      async (r) => (r.ok ? null : ((await r.json()).reason ?? 'unknown')),
      () => 'connection',
    );
    if (reason !== 'starting' && reason !== 'connection') break;
    await sleep(10);
  }
  const serving = performance.now() - started;
  const exited = new Promise((r) => child.once('exit', r));
  const killed = performance.now();
  child.kill('SIGTERM');
  await exited;
  return { up, serving, down: performance.now() - killed };
}

const runs = [];
for (let i = 0; i < 3; i++) runs.push(await startOnce());
const servingRuns = [];
for (let i = 0; i < 3; i++) servingRuns.push(await startOnce({ serving: true }));

// Scripts of about 4 KB each (forty small functions), as an instance that has grown keeps.
const SCRIPTS = Number(process.env.BENCH_SCRIPTS ?? 300);
const scriptsDir = path.join(dir, 'ws', 'scripts');
mkdirSync(scriptsDir, { recursive: true });
for (let i = 0; i < SCRIPTS; i++) {
  const defs = Array.from(
    { length: 40 },
    (_, k) =>
      `def f${k}(x):\n    if x > ${k}:\n        return [y * ${k} for y in range(x) if y % 3 == 0]\n    return {"k": ${k}, "x": x}\n`,
  );
  writeFileSync(path.join(scriptsDir, `s${i}.star`), `# script ${i}\n${defs.join('\n')}`);
}
const importing = await startOnce({ serving: true });
const withScripts = [];
for (let i = 0; i < 3; i++) withScripts.push(await startOnce({ serving: true }));
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
const row = (what, ms) => console.log(`| ${what} | ${ms.toFixed(0)} | ${(ms / base).toFixed(1)} |`);
row(
  'steward start → API serving (/ready past starting)',
  median(servingRuns.map((r) => r.serving)),
);
row(`… importing ${SCRIPTS} scripts from disk`, importing.serving);
row(`… ${SCRIPTS} scripts on disk, unchanged`, median(withScripts.map((r) => r.serving)));
