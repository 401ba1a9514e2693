// Shutdown under load: 32 keep-alive clients poll the probes (/healthz, /ready) of `steward api`
// while it gets SIGTERM.
// Reports, per run, the exit code, the time from SIGTERM to exit and how every request during the
// run was answered (HTTP status, or the socket error a client saw). The bounds it is read against
// are DESIGN's: answer until `server.shutdown_grace` (3 s here), exit 0 within 10 s. The last run
// stops Redis just before the signal, the case where the old shutdown always hit its force-exit.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort, sleep, startRedis, stewardEnv } from './lib.mjs';

const cli = new URL('../dist/cli/main.js', import.meta.url).pathname;
const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-shutdown-'));
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const CLIENTS = 32;

const get = (port, p) =>
  new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: p, agent, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', (e) => resolve(e.code ?? 'error'));
    req.on('timeout', () => req.destroy());
  });

async function run(label, { stopRedisFirst }) {
  const redis = await startRedis(dir);
  const port = await freePort();
  const child = spawn(process.execPath, [cli, 'api'], {
    cwd: dir,
    env: stewardEnv({ dir, redisUrl: redis.url, port, suffix: `-${label}` }),
    stdio: 'ignore',
  });
  while ((await get(port, '/api/setup/status')) !== 200) await sleep(50);
  const counts = {};
  let stop = false;
  let phase = 'before';
  const clients = Array.from({ length: CLIENTS }, async (_, i) => {
    while (!stop) {
      const probe = i % 2 === 0 ? '/ready' : '/healthz';
      const status = await get(port, probe);
      const key = `${phase} ${probe} ${status}`;
      counts[key] = (counts[key] ?? 0) + 1;
      if (typeof status !== 'number') await sleep(20);
    }
  });
  await sleep(2000);
  if (stopRedisFirst) {
    redis.stop();
    await sleep(300);
  }
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const t0 = Date.now();
  phase = 'after';
  child.kill('SIGTERM');
  const code = await exited;
  const took = Date.now() - t0;
  await sleep(300);
  stop = true;
  await Promise.all(clients);
  redis.stop();
  console.log(`${label}: exit ${code} ${took} ms after SIGTERM (bound 10000 ms, grace 3000 ms)`);
  for (const [key, n] of Object.entries(counts).sort()) console.log(`  ${key.padEnd(32)} ${n}`);
  return code === 0 && took < 10_000;
}

let ok = true;
for (let i = 1; i <= 3; i++)
  ok = (await run(`redis up, run ${i}`, { stopRedisFirst: false })) && ok;
ok = (await run('redis stopped', { stopRedisFirst: true })) && ok;
agent.destroy();
process.exit(ok ? 0 : 1);
