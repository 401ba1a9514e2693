// Memory of `steward start` (the whole process: main thread and script threads, VmRSS from
// /proc) idle after start-up and after a load run, beside a bare `node` process measured in
// the same run. Targets (issue 17): idle ≤ 120 MB, ≤ 200 MB after the load run, start to
// /healthz ≤ 1 s. The engine is a process of its own, so it is not started here.
// BENCH_BEFORE=<another checkout, built there with `npm run build`>: that checkout's `steward
// start` is measured the same way first (with its own node options if it has any, else node's
// defaults, as its `npm start` ran it), each on a redis-server of its own, for a before/after
// table in the same run.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nodeHeapOptions } from '../dist/cli/node-options.js';
import { freePort, sleep, startRedis, stewardEnv } from './lib.mjs';

const cli = new URL('../dist/cli/main.js', import.meta.url).pathname;
const BEFORE = process.env.BENCH_BEFORE ? path.resolve(process.env.BENCH_BEFORE) : undefined;
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 10_000);
// V8 gives back what start-up or a burst left in its heaps once the process has been quiet for
// a while (its memory reducer, about half a minute here), so each state is read twice.
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 60_000);
const LOAD_RUNS = Number(process.env.BENCH_RUNS ?? 3000);
const ADMIN = { username: 'bench', password: 'correct horse battery staple' };

const rssMb = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
};

async function until(ok, what) {
  for (let i = 0; i < 500; i++) {
    if (await ok().catch(() => false)) return;
    await sleep(10);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function bareNode() {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', 'console.log(1); setInterval(() => {}, 1000)'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise((r) => child.stdout.once('data', r));
  const up = performance.now() - started;
  await sleep(IDLE_MS);
  const rss = rssMb(child.pid);
  child.kill();
  return { up, rss };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-bench-footprint-'));
// The load run is one client; the per-IP API limit would refuse most of it.
writeFileSync(
  path.join(dir, 'steward.yaml'),
  'admin:\n  rate_limit:\n    api_per_minute: 10000000\n',
);
const bare = await bareNode();

/** Start-up time and RSS of `steward start` run from `main` with `options`, idle, then after load. */
async function measure(main, options, label) {
  const home = path.join(dir, label);
  mkdirSync(home);
  const redis = await startRedis(home);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, [...options, main, 'start'], {
    cwd: dir,
    env: stewardEnv({ dir: home, redisUrl: redis.url, port, STEWARD_ENGINE_AUTOSTART: 'false' }),
    stdio: 'ignore',
  });
  await until(() => fetch(`${base}/healthz`).then((r) => r.ok), '/healthz');
  const up = performance.now() - started;

  async function json(method, url, body, headers = {}) {
    const res = await fetch(base + url, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, headers: res.headers, body: await res.json().catch(() => null) };
  }

  // Idle as an installed instance sits: set up, ready, nobody calling.
  // /healthz answers from the first moment; /api answers 503 until Redis is reached.
  await until(async () => {
    const setup = await json('POST', '/api/setup', { ...ADMIN, confirm_password: ADMIN.password });
    if (setup.status === 503) return false;
    if (setup.status !== 200)
      throw new Error(`setup: ${setup.status} ${JSON.stringify(setup.body)}`);
    return true;
  }, 'setup');
  await until(() => fetch(`${base}/ready`).then((r) => r.ok), '/ready');
  await sleep(IDLE_MS);
  const idle = rssMb(child.pid);
  await sleep(SETTLE_MS - IDLE_MS);
  const idleSettled = rssMb(child.pid);

  // The load run: an administrator's session, then script test runs at concurrency 32 with the
  // listing, the UI and the OpenAPI document asked for along the way.
  const login = await json('POST', '/api/auth/login', ADMIN);
  const cookie = login.headers.get('set-cookie').split(';')[0];
  const session = await json('GET', '/api/session', undefined, { cookie });
  const auth = { authorization: `Bearer ${session.body.access_token}` };
  const source = 'def main():\n    return {"sum": args["a"] + args["b"], "s": "x" * 1000}\n';
  await json('POST', '/api/scripts', { name: 'load.star', source }, auth);
  await json('POST', '/api/scripts/load.star/approve', undefined, auth);
  let next = 0;
  let failures = 0;
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(child.pid))), 100);
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < LOAD_RUNS) {
        const i = next++;
        const res = await json(
          'POST',
          '/api/scripts/load.star/test',
          { args: { a: i, b: 1 } },
          auth,
        );
        if (res.status !== 200 || !res.body.success) {
          if (!failures++) console.log(`first failure: ${res.status} ${JSON.stringify(res.body)}`);
        }
        if (i % 100 === 0) {
          await json('GET', '/api/scripts', undefined, auth);
          await fetch(`${base}/`).then((r) => r.text());
          await fetch(`${base}/api/openapi.json`).then((r) => r.text());
        }
      }
    }),
  );
  clearInterval(sampler);
  const afterLoad = rssMb(child.pid);
  await sleep(SETTLE_MS);
  const settled = rssMb(child.pid);

  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  redis.stop();
  return { up, idle, idleSettled, peak, afterLoad, settled, failures };
}

// As `npm start` runs it; BENCH_NODE_ARGS adds options to try (BENCH_NODE_DEFAULTS=1 drops
// Steward's own, to compare with node's defaults).
const options = [
  ...(process.env.BENCH_NODE_DEFAULTS === '1' ? [] : nodeHeapOptions),
  ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
];
let earlier;
if (BEFORE !== undefined) {
  const own = path.join(BEFORE, 'dist/cli/node-options.js');
  const beforeOptions = existsSync(own) ? (await import(own)).nodeHeapOptions : [];
  earlier = await measure(path.join(BEFORE, 'dist/cli/main.js'), beforeOptions, 'before');
}
const { up, idle, idleSettled, peak, afterLoad, settled, failures } = await measure(
  cli,
  options,
  'after',
);
rmSync(dir, { recursive: true, force: true });

const row = (what, value, unit, baseline, target) =>
  console.log(
    `| ${what} | ${value.toFixed(0)} ${unit} | ${(value / baseline).toFixed(2)}× | ${target} |`,
  );
console.log(`load run: ${LOAD_RUNS} script runs at concurrency 32, ${failures} failed`);
console.log('| measure | value | × bare node | target |');
console.log('|---|---:|---:|---|');
row('bare node start', bare.up, 'ms', bare.up, '');
row('steward start → /healthz', up, 'ms', bare.up, `≤ 1000 ms: ${up <= 1000 ? 'met' : 'NOT met'}`);
row('bare node RSS', bare.rss, 'MB', bare.rss, '');
row(
  `steward idle RSS (set up, ${IDLE_MS / 1000} s after ready)`,
  idle,
  'MB',
  bare.rss,
  `≤ 120 MB: ${idle <= 120 ? 'met' : 'NOT met'}`,
);
row(`steward idle RSS (${SETTLE_MS / 1000} s after ready)`, idleSettled, 'MB', bare.rss, '');
row('peak RSS during the load run', peak, 'MB', bare.rss, '');
row(
  'RSS right after the load run',
  afterLoad,
  'MB',
  bare.rss,
  `≤ 200 MB: ${afterLoad <= 200 ? 'met' : 'NOT met'}`,
);
row(`RSS ${SETTLE_MS / 1000} s after the load run`, settled, 'MB', bare.rss, '');
if (earlier !== undefined) {
  // Before (BENCH_BEFORE) and after, each beside the bare node measured in this run.
  console.log(
    `\nbefore: ${BEFORE}${earlier.failures ? ` (${earlier.failures} runs of its load run failed)` : ''}`,
  );
  console.log('| measure | before | after | before × bare node | after × bare node |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [what, key, unit, baseline] of [
    ['start → /healthz', 'up', 'ms', bare.up],
    [`idle RSS, ${IDLE_MS / 1000} s after ready`, 'idle', 'MB', bare.rss],
    [`idle RSS, ${SETTLE_MS / 1000} s after ready`, 'idleSettled', 'MB', bare.rss],
    ['peak RSS during the load run', 'peak', 'MB', bare.rss],
    ['RSS right after the load run', 'afterLoad', 'MB', bare.rss],
    [`RSS ${SETTLE_MS / 1000} s after the load run`, 'settled', 'MB', bare.rss],
  ]) {
    const b = earlier[key];
    const a = { up, idle, idleSettled, peak, afterLoad, settled }[key];
    console.log(
      `| ${what} | ${b.toFixed(0)} ${unit} | ${a.toFixed(0)} ${unit} | ${(b / baseline).toFixed(2)}× | ${(a / baseline).toFixed(2)}× |`,
    );
  }
}
