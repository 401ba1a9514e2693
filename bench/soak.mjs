// Soak of `steward start` under a realistic script (issue 46): a script that builds a 50-key
// dict, reads a declared secret, makes one `http.get` to a loopback server with it and returns
// a result of a few hundred bytes, run through POST /api/scripts/:name/test at concurrency 16.
// The process's RSS (VmRSS) is printed every SOAK_EVERY runs beside the V8 heaps of its main
// thread and of its script threads (a diagnostic report, `--report-signal`, read at each mark),
// so heap growth and growth outside the heaps stand apart. Targets: RSS after warm-up (the first
// mark) stays within ±10%, and 60 s after the load the idle process is at ≤ 150 MB.
// SOAK_RUNS (default 500,000), SOAK_EVERY (25,000), SOAK_CONCURRENCY (16), SOAK_IDLE_MS (60,000),
// SOAK_NODE_ARGS (node options added to Steward's own, e.g. to compare allocators' settings),
// SOAK_ENV (NAME=value pairs for the process, e.g. MALLOC_ARENA_MAX=2), SOAK_SNAPSHOTS (run
// counts, comma-separated, at which the main thread writes a heap snapshot into
// SOAK_SNAPSHOT_DIR; compare two with `node bench/heap-snapshot-diff.mjs a b`).
// The pool-level soak (trivial runs, no API) is `node bench/soak-pool.mjs`.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { nodeHeapOptions } from '../dist/cli/node-options.js';
import { freePort, sleep, startRedis, stewardEnv } from './lib.mjs';

const RUNS = Number(process.env.SOAK_RUNS ?? 500_000);
const EVERY = Number(process.env.SOAK_EVERY ?? 25_000);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 16);
const IDLE_MS = Number(process.env.SOAK_IDLE_MS ?? 60_000);
const SNAPSHOTS = new Set(
  (process.env.SOAK_SNAPSHOTS ?? '').split(',').filter(Boolean).map(Number),
);
const SNAPSHOT_DIR = path.resolve(process.env.SOAK_SNAPSHOT_DIR ?? '.');
const ADMIN = { username: 'bench', password: 'correct horse battery staple' };
const SECRET = 'sk-soak-0123456789abcdef0123456789';
const cli = new URL('../dist/cli/main.js', import.meta.url).pathname;
const mb = (bytes) => bytes / 1024 / 1024;

// The loopback API the script calls: a small JSON answer, checked for the secret's arrival.
let unauthorised = 0;
const upstream = http.createServer((req, res) => {
  if (req.headers.authorization !== `Bearer ${SECRET}`) unauthorised++;
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ id: req.url.slice(req.url.indexOf('=') + 1), status: 'open', n: 7 }));
});
upstream.keepAliveTimeout = 60_000;
await new Promise((r) => upstream.listen(0, '127.0.0.1', r));
const upstreamPort = upstream.address().port;

const SOURCE = `# @description: soak: a dict, strings, a secret, one loopback call
# @secrets: API_KEY -> 127.0.0.1:${upstreamPort}
def main():
    fields = {}
    for i in range(50):
        fields["field_%d" % i] = "value %d of run %d" % (i, args["n"])
    r = http.get(
        "http://127.0.0.1:${upstreamPort}/items?id=%d" % args["n"],
        headers = {"Authorization": "Bearer " + secrets.get("API_KEY")},
    )
    item = json.decode(r["body"])
    keys = sorted(fields.keys())
    summary = ", ".join([k + "=" + fields[k] for k in keys[:6]])
    return {
        "status": r["status"],
        "item": item["id"],
        "count": len(fields),
        "summary": summary,
        "tag": ("run-%d-" % args["n"]) * 4,
    }
`;

const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-bench-soak-'));
const reports = path.join(dir, 'reports');
mkdirSync(reports);
writeFileSync(
  path.join(dir, 'steward.yaml'),
  `admin:\n  rate_limit:\n    api_per_minute: 100000000\negress:\n  allow: ["127.0.0.1"]\n`,
);
const redis = await startRedis(dir);
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const extraEnv = Object.fromEntries(
  (process.env.SOAK_ENV ?? '')
    .split(' ')
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
const options = [
  ...nodeHeapOptions,
  ...(process.env.SOAK_NODE_ARGS ?? '').split(' ').filter(Boolean),
];
// Through NODE_OPTIONS, not the command line: script threads pick their V8 code cache by the
// process's command-line options (`bundle-loader.ts`), which must stay those of `npm start`.
const reportOptions =
  `--report-signal=SIGUSR2 --report-directory=${reports} --report-compact --report-exclude-network` +
  (SNAPSHOTS.size ? ` --heapsnapshot-signal=SIGWINCH --diagnostic-dir=${SNAPSHOT_DIR}` : '');
const child = spawn(process.execPath, [...options, cli, 'start'], {
  cwd: dir,
  env: {
    ...stewardEnv({ dir, redisUrl: redis.url, port, STEWARD_ENGINE_AUTOSTART: 'false' }),
    NODE_OPTIONS: reportOptions,
    ...extraEnv,
  },
  stdio: ['ignore', 'ignore', 'pipe'],
});
// The process's own errors pass through; node's lines about each diagnostic report do not.
child.stderr.setEncoding('utf8');
child.stderr.on('data', (text) => {
  const kept = text.split('\n').filter((l) => l && !/Node\.js report|^report\.\S+\.json$/.test(l));
  if (kept.length) process.stderr.write(kept.join('\n') + '\n');
});
let exited = false;
child.once('exit', () => (exited = true));

const rssMb = () =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024;

/** The main thread's and the script threads' V8 heaps (used, committed), from a fresh report. */
async function heaps() {
  const before = new Set(readdirSync(reports));
  child.kill('SIGUSR2');
  for (let i = 0; i < 500; i++) {
    await sleep(20);
    const file = readdirSync(reports).find((f) => !before.has(f));
    if (file === undefined) continue;
    let report;
    try {
      report = JSON.parse(readFileSync(path.join(reports, file), 'utf8'));
    } catch {
      continue; // still being written
    }
    rmSync(path.join(reports, file));
    const heap = (r) => r.javascriptHeap;
    const threads = report.workers.map(heap);
    const sum = (key) => threads.reduce((s, h) => s + h[key], 0);
    const space = (name) => threads.reduce((s, h) => s + h.heapSpaces[name].memorySize, 0);
    return {
      mainUsed: mb(heap(report).usedMemory),
      mainTotal: mb(heap(report).totalMemory),
      mainMalloc: mb(heap(report).mallocedMemory),
      threads: threads.length,
      threadUsed: mb(sum('usedMemory')),
      threadTotal: mb(sum('totalMemory')),
      threadNew: mb(space('new_space')),
      threadOld: mb(space('old_space') + space('code_space') + space('large_object_space')),
    };
  }
  throw new Error('no diagnostic report from the process');
}

/** A heap snapshot of the main thread; it is written on that thread, so a request answered once
 * the file exists means it is complete. */
async function snapshot(runs) {
  const before = new Set(readdirSync(SNAPSHOT_DIR));
  const started = performance.now();
  child.kill('SIGWINCH');
  let file;
  while ((file = readdirSync(SNAPSHOT_DIR).find((f) => !before.has(f))) === undefined)
    await sleep(50);
  await request('GET', '/ready');
  console.log(
    `heap snapshot after ${runs.toLocaleString('en')} runs: ${path.join(SNAPSHOT_DIR, file)} (${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
function request(method, url, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      base + url,
      { method, agent, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, body: text && JSON.parse(text) }),
        );
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function until(ok, what) {
  for (let i = 0; i < 1000; i++) {
    if (exited) throw new Error(`steward start exited while waiting for ${what}`);
    if (await ok().catch(() => false)) return;
    await sleep(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

await until(async () => {
  const setup = await request('POST', '/api/setup', { ...ADMIN, confirm_password: ADMIN.password });
  if (setup.status === 503) return false;
  if (setup.status !== 200) throw new Error(`setup: ${setup.status} ${JSON.stringify(setup.body)}`);
  return true;
}, 'setup');
await until(() => request('GET', '/ready').then((r) => r.status === 200), '/ready');
const login = await request('POST', '/api/auth/login', ADMIN);
const cookie = login.headers['set-cookie'][0].split(';')[0];
const session = await request('GET', '/api/session', undefined, { cookie });
const auth = { authorization: `Bearer ${session.body.access_token}` };
for (const [method, url, body] of [
  ['POST', '/api/secrets/API_KEY', { value: SECRET }],
  ['POST', '/api/scripts', { name: 'soak.star', source: SOURCE }],
  ['POST', '/api/scripts/soak.star/approve', undefined],
]) {
  const res = await request(method, url, body, auth);
  if (res.status >= 300)
    throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
}

console.log(
  `soak: ${RUNS.toLocaleString('en')} runs of soak.star at concurrency ${CONCURRENCY} against steward start` +
    (options.length > nodeHeapOptions.length
      ? ` (${options.slice(nodeHeapOptions.length).join(' ')})`
      : '') +
    (Object.keys(extraEnv).length ? ` env ${process.env.SOAK_ENV}` : ''),
);
console.log(
  '| runs | RSS MB | main heap used/committed MB | main malloc MB | script threads | their heaps used/committed MB | of which young / old+code | runs/s |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
const curve = [];
async function mark(runs, rate) {
  const h = await heaps();
  const rss = rssMb();
  curve.push([runs, rss]);
  console.log(
    `| ${runs.toLocaleString('en')} | ${rss.toFixed(0)} | ${h.mainUsed.toFixed(1)} / ${h.mainTotal.toFixed(1)} | ${h.mainMalloc.toFixed(1)} | ${h.threads} | ${h.threadUsed.toFixed(1)} / ${h.threadTotal.toFixed(1)} | ${h.threadNew.toFixed(1)} / ${h.threadOld.toFixed(1)} | ${rate} |`,
  );
}
await mark(0, '');

let next = 0;
let done = 0;
let failures = 0;
let firstFailure;
let since = performance.now();
let pending = Promise.resolve();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < RUNS) {
      const n = next++;
      const res = await request('POST', '/api/scripts/soak.star/test', { args: { n } }, auth);
      const r = res.body;
      if (
        res.status !== 200 ||
        !r.success ||
        r.result.item !== String(n) ||
        r.result.count !== 50
      ) {
        failures++;
        firstFailure ??= `${res.status} ${JSON.stringify(r).slice(0, 300)}`;
      }
      if (++done % EVERY === 0) {
        const rate = ((EVERY / (performance.now() - since)) * 1000).toFixed(0);
        const at = done;
        // One mark at a time, read while the load goes on (as the figures were).
        pending = pending.then(() => mark(at, rate));
        since = performance.now();
      }
      if (SNAPSHOTS.has(done)) {
        const at = done;
        pending = pending.then(() => snapshot(at));
      }
    }
  }),
);
await pending;
if (failures) console.log(`${failures} runs failed; first: ${firstFailure}`);
if (unauthorised) console.log(`${unauthorised} loopback calls arrived without the secret`);

const warm = curve.find(([runs]) => runs > 0);
if (warm !== undefined) {
  const after = curve.filter(([runs]) => runs >= warm[0]).map(([, rss]) => rss);
  const [lo, hi] = [Math.min(...after), Math.max(...after)];
  const last = curve.at(-1);
  const perRun = last[0] > warm[0] ? ((last[1] - warm[1]) * 1024 * 1024) / (last[0] - warm[0]) : 0;
  const within = Math.max(hi / warm[1] - 1, 1 - lo / warm[1]) * 100;
  console.log(
    `after warm-up (${warm[0].toLocaleString('en')} runs, ${warm[1].toFixed(0)} MB): ${lo.toFixed(0)}–${hi.toFixed(0)} MB, ` +
      `within ±${within.toFixed(1)}% (target ±10%: ${within <= 10 ? 'met' : 'NOT met'}); ` +
      `${perRun.toFixed(0)} B/run from the first mark to the last`,
  );
}
await sleep(IDLE_MS);
const idle = rssMb();
console.log(
  `idle RSS ${IDLE_MS / 1000} s after the load: ${idle.toFixed(0)} MB (target ≤ 150 MB: ${idle <= 150 ? 'met' : 'NOT met'})`,
);
await mark(RUNS, 'idle');

agent.destroy();
child.kill('SIGTERM');
await new Promise((r) => (exited ? r() : child.once('exit', r)));
redis.stop();
upstream.closeAllConnections();
upstream.close();
rmSync(dir, { recursive: true, force: true });
