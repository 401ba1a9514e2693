// Script-run latency end to end: POST /api/scripts/:name/test over real HTTP
// (API → Redis → BullMQ → Piscina thread → back), at concurrency 1 and 32, beside two floors
// measured in the same run: the same script run in-process by the interpreter, and the queue's
// own round trip (a raw BullMQ add, then wait for the result through QueueEvents, no-op
// processor). The client is node:http on kept-alive connections. First Steward runs in this
// one process, composed as `steward start` composes it, on a private redis-server: there the
// client shares Steward's event loop and waits, after each answer, for the run's tail (BullMQ's
// completion, the history write) before it reads. Then the same requests go to Steward as
// deployed, each in processes of its own on the same redis-server (a deployment prefix each),
// with this process as the outside client a browser or the AI's engine is: `steward start`
// alone, then `steward api` and `steward worker` apart. Targets: p50 at concurrency 1 ≤ 2× the
// raw BullMQ p50; throughput at concurrency 32 ≥ 0.5× the raw BullMQ figure; shown for each
// setup, as multiples of the floor measured beside it. For `steward api` + `steward worker`,
// the floor is also measured in their shape, its worker in a process of its own
// (bench/raw-bullmq.mjs), and shown beside the targets' ratios: a job's pick-up and completion
// then wake another process, as they do for Steward so deployed.
//
// The floor is measured interleaved with each side, in cycles of raw c1, Steward c1, raw c32,
// Steward c32 (BENCH_CYCLES, 3 by default): this machine is shared, and its speed drifts by tens
// of percent within minutes, so a floor measured once, minutes before or after the figure it
// divides, moved either ratio by as much as the changes it was meant to show. Each figure is the
// median over the cycles, and so is each ratio (taken within its cycle).
//
// Beside the raw BullMQ c1 figure, each cycle measures the other parts a run passes through,
// each alone (bench/run-parts.mjs): a bare node:http server answering the same request, and
// Steward's script pool running the script. Their p50s added to raw BullMQ's are the floor of a
// run at concurrency 1 made of those parts, and Steward's p50 against that sum is what its own
// code and the parts' sharing of a process and two CPUs add.
//
// Each side's first round at concurrency 32 is shown apart, beside raw BullMQ's first: it pays
// for V8 compiling the paths that only concurrency takes (and for the heap growing to its working
// size): here it cost about 720 µs of CPU per run against 380 in the rounds after it. A server
// runs that round once per process.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nodeHeapOptions } from '../dist/cli/node-options.js';
import { execModule, callFunction } from '../dist/starlark/index.js';
import { freePort } from '../dist/store/embedded-redis.js';
import { measure, summary } from './lib.mjs';
import { openRawBullmq } from './raw-bullmq.mjs';
import { openBareHttpApart, openPartsProbe } from './run-parts.mjs';
import { SOURCE, prepare, startInProcess, testRun } from './script-runs-setup.mjs';

const N1 = Number(process.env.BENCH_RUNS ?? 2000);
const N32 = Number(process.env.BENCH_RUNS_32 ?? 6000);
const CYCLES = Number(process.env.BENCH_CYCLES ?? 3);
// BENCH_BEFORE=<another checkout, built there with `npm run build`>: its `steward start` is
// measured last in the same way (its own floor cycles beside it), for a before/after comparison.
const BEFORE = process.env.BENCH_BEFORE ? path.resolve(process.env.BENCH_BEFORE) : undefined;

const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-bench-scripts-'));
const local = await startInProcess(dir);
const { redis, worker, base } = local;
const auth = await prepare(base);
const oneRun = (at = base, bearer = auth) => testRun(at, bearer);

function floor(total) {
  const times = [];
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const t0 = performance.now();
    const mod = execModule({
      file: 'bench.star',
      source: SOURCE,
      predeclared: { args: argsDict() },
    });
    callFunction(mod.globals.get('main'), [], null, mod.thread);
    times.push(performance.now() - t0);
  }
  return summary(times, total / ((performance.now() - started) / 1000));
}

function argsDict() {
  const mod = execModule({ file: 'args.star', source: 'a = {"a": 1, "b": 2}\n' });
  return mod.globals.get('a');
}

// Warm-up: threads, QueueEvents, JIT.
const raw = await openRawBullmq(redis.url, 'bench-raw');
const parts = await openPartsProbe();
for (let i = 0; i < 200; i++) await oneRun();
for (let i = 0; i < 200; i++) await raw.one();
floor(2000);

/**
 * Trivial runs while 8 runs sleep 5 s each: waiting must not block computing. Runs start only
 * while the sleepers still sleep (up to 200 of them, none later than 4 s after the sleepers were
 * sent), so a run that waits for a sleeper's thread counts with its whole wait instead of being
 * followed by runs on threads the sleepers have freed; `slowest` is the longest of them.
 */
async function besideSleepers(at = base, bearer = auth) {
  const sent = performance.now();
  const sleepers = Array.from({ length: 8 }, () =>
    fetch(`${at}/api/scripts/sleepy.star/test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer },
      body: '{}',
    }).then((r) => r.json()),
  );
  await new Promise((r) => setTimeout(r, 500));
  const times = [];
  const started = performance.now();
  while (times.length < 200 && performance.now() - sent < 4000) {
    const t0 = performance.now();
    await oneRun(at, bearer);
    times.push(performance.now() - t0);
  }
  const rate = times.length / ((performance.now() - started) / 1000);
  const slowest = Math.max(...times);
  const answers = await Promise.all(sleepers);
  if (!answers.every((a) => a.success))
    throw new Error(`a sleeper failed: ${JSON.stringify(answers)}`);
  return { ...summary(times, rate), runs: times.length, slowest };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
/** The median of each figure over rounds. */
const medianOf = (rounds) => ({
  p50: median(rounds.map((r) => r.p50)),
  p99: median(rounds.map((r) => r.p99)),
  rate: median(rounds.map((r) => r.rate)),
});

/**
 * One side against raw BullMQ (see the top): the first round of each at concurrency 32, then
 * CYCLES cycles of raw c1, the parts' c1 (bench/run-parts.mjs: bare HTTP, in the probe's process
 * or, with `httpApart`, served from a process of its own to this one; the script thread), side
 * c1, raw c32, side c32. Ratios are taken within each cycle. With `queueApart` (a raw BullMQ
 * floor whose worker is in a process of its own, bench/raw-bullmq.mjs), each cycle measures that
 * floor too, beside raw c1 and raw c32, and the parts added up take it in place of raw c1's.
 */
async function against(run, { httpApart = false, queueApart = null } = {}) {
  const bare = httpApart ? await openBareHttpApart() : null;
  const rawFirst32 = await measure(N32, 32, raw.one);
  const first32 = await measure(N32, 32, run);
  const cycles = [];
  for (let i = 0; i < CYCLES; i++) {
    const rawC1 = await measure(N1, 1, raw.one);
    const apartC1 = queueApart ? await measure(N1, 1, queueApart.one) : null;
    const httpC1 = bare ? await bare.measure(N1) : await parts.measure('http', N1);
    const threadC1 = await parts.measure('thread', N1);
    const c1 = await measure(N1, 1, run);
    const rawC32 = await measure(N32, 32, raw.one);
    const apartC32 = queueApart ? await measure(N32, 32, queueApart.one) : null;
    const c32 = await measure(N32, 32, run);
    const partsSum = (apartC1 ?? rawC1).p50 + httpC1.p50 + threadC1.p50;
    cycles.push({ rawC1, apartC1, httpC1, threadC1, partsSum, c1, rawC32, apartC32, c32 });
  }
  await bare?.close();
  return {
    httpC1: medianOf(cycles.map((c) => c.httpC1)),
    threadC1: medianOf(cycles.map((c) => c.threadC1)),
    partsSum: median(cycles.map((c) => c.partsSum)),
    partsRatios: cycles.map((c) => c.c1.p50 / c.partsSum),
    rawFirst32,
    first32,
    rawC1: medianOf(cycles.map((c) => c.rawC1)),
    rawC32: medianOf(cycles.map((c) => c.rawC32)),
    apart: queueApart
      ? {
          c1: medianOf(cycles.map((c) => c.apartC1)),
          c32: medianOf(cycles.map((c) => c.apartC32)),
          p50Ratios: cycles.map((c) => c.c1.p50 / c.apartC1.p50),
          rateRatios: cycles.map((c) => c.c32.rate / c.apartC32.rate),
        }
      : null,
    c1: medianOf(cycles.map((c) => c.c1)),
    c32: medianOf(cycles.map((c) => c.c32)),
    p50Ratios: cycles.map((c) => c.c1.p50 / c.rawC1.p50),
    rateRatios: cycles.map((c) => c.c32.rate / c.rawC32.rate),
  };
}

const floorRun = floor(N1);
const steward = await against(oneRun);
const sleeping = await besideSleepers();
/** The table rows of one side measured by `against`: its floor's, then its own. */
const sideRows = (side, name, beside) => [
  [`raw BullMQ, c1${beside}`, side.rawC1],
  ...(side.apart ? [[`raw BullMQ, worker apart, c1${beside}`, side.apart.c1]] : []),
  [`bare HTTP, c1${beside}`, side.httpC1],
  [`script thread, c1${beside}`, side.threadC1],
  [`raw BullMQ, c32${beside}`, side.rawC32],
  ...(side.apart ? [[`raw BullMQ, worker apart, c32${beside}`, side.apart.c32]] : []),
  [`raw BullMQ, c32 first round${beside}`, side.rawFirst32],
  [`${name}, c1`, side.c1],
  [`${name}, c32`, side.c32],
  [`${name}, c32 first round`, side.first32],
  ...(side.sleeping ? [[`${name}, c1, 8 runs sleeping`, side.sleeping]] : []),
];
const inProcess = [
  ['interpreter in-process (floor)', floorRun],
  ...sideRows(steward, 'POST /test', ''),
  ['POST /test, c1, 8 runs sleeping', sleeping],
];
await local.stop();

/** Another checkout's own node options for `steward start`, or none if it had none. */
async function checkoutHeapOptions(checkout) {
  const file = path.join(checkout, 'dist/cli/node-options.js');
  return existsSync(file) ? (await import(file)).nodeHeapOptions : [];
}

/**
 * Steward as deployed, in processes of its own on the same redis-server under a prefix of their
 * own, answering the same requests from this process: `steward start` alone (`roles` ['start']),
 * or `steward api` and `steward worker` apart (['api', 'worker']).
 */
async function spawned(roles, checkout) {
  const label = `${checkout === undefined ? '' : 'before-'}${roles.join('-')}`;
  const port = await freePort();
  const configFile = path.join(dir, `${label}.yaml`);
  writeFileSync(configFile, 'admin:\n  rate_limit:\n    api_per_minute: 10000000\n');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    REDIS_URL: redis.url,
    STEWARD_REDIS_PREFIX: `${label}:`,
    STEWARD_DATA_DIR: path.join(dir, `${label}-data`),
    STEWARD_WORKSPACE: path.join(dir, `${label}-workspace`),
    // `start` would supervise the AI engine; none is wanted here.
    STEWARD_ENGINE_AUTOSTART: 'false',
    STEWARD_CONFIG: configFile,
    STEWARD_HOST: '127.0.0.1',
    STEWARD_PORT: String(port),
    STEWARD_LOG_LEVEL: 'warn',
  };
  const cli =
    checkout === undefined
      ? new URL('../dist/cli/main.js', import.meta.url).pathname
      : path.join(checkout, 'dist/cli/main.js');
  // As deployed (BENCH_NODE_DEFAULTS=1: node's defaults, to compare); another checkout as its own
  // `npm start` ran it.
  const heapOptions =
    process.env.BENCH_NODE_DEFAULTS === '1'
      ? []
      : checkout === undefined
        ? nodeHeapOptions
        : await checkoutHeapOptions(checkout);
  const role = (name) =>
    spawn(process.execPath, [...heapOptions, cli, name], {
      env,
      cwd: dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  const children = [role(roles[0])];
  try {
    const at = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    // Up, and waiting only for its admin (set up next): /ready names what it still waits for.
    const waitingFor = () =>
      fetch(`${at}/ready`).then(
        async (r) => (r.status === 200 ? null : ((await r.json()).reason ?? 'unknown')),
        () => 'connection',
      );
    for (let reason = await waitingFor(); reason !== null && reason !== 'admin_setup';) {
      if (Date.now() > deadline)
        throw new Error(`steward ${roles[0]} never became ready (${reason})`);
      await new Promise((r) => setTimeout(r, 100));
      reason = await waitingFor();
    }
    const bearer = await prepare(at);
    // A worker starts after the API made the deployment's secrets key.
    for (const name of roles.slice(1)) children.push(role(name));
    const run = () => oneRun(at, bearer);
    await run();
    for (let i = 0; i < 200; i++) await run();
    if (roles.length === 1) {
      const side = await against(run, { httpApart: true });
      return { ...side, sleeping: await besideSleepers(at, bearer) };
    }
    // Its producer and its worker in two processes: the queue's floor in the same shape, beside.
    const queueApart = await openRawBullmq(redis.url, 'bench-raw-apart', { apart: true });
    try {
      for (let i = 0; i < 200; i++) await queueApart.one();
      return await against(run, { httpApart: true, queueApart });
    } finally {
      await queueApart.close();
    }
  } finally {
    await Promise.all(
      children.map((child) => {
        if (child.exitCode !== null) return undefined;
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        return exited;
      }),
    );
  }
}
const started = await spawned(['start']);
const apart = await spawned(['api', 'worker']);
const startedBefore = BEFORE === undefined ? undefined : await spawned(['start'], BEFORE);
await raw.close();
await parts.close();

const rows = [
  ...inProcess,
  ...sideRows(started, 'steward start process', ' (beside start)'),
  ...sideRows(apart, 'api + worker procs', ' (beside procs)'),
  ...(startedBefore === undefined
    ? []
    : sideRows(startedBefore, 'before: steward start process', ' (beside before)')),
];
const ms = (v) => `${v.toFixed(3)} ms`.padStart(11);
console.log(`script runs (${worker.threads} script threads, ${os.availableParallelism()} CPUs)`);
console.log(
  `${'path'.padEnd(44)} ${'p50'.padStart(11)} ${'p99'.padStart(11)} ${'runs/s'.padStart(9)}`,
);
for (const [name, r] of rows) {
  console.log(
    `${name.padEnd(44)} ${ms(r.p50)} ${ms(r.p99)} ${Math.round(r.rate).toString().padStart(9)}`,
  );
}
const verdict = (ok) => (ok ? 'met' : 'NOT met');
for (const [label, beside, idle] of [
  ['', sleeping, steward],
  [' (steward start in its own process)', started.sleeping, started],
  ...(startedBefore === undefined
    ? []
    : [[` (before: steward start)`, startedBefore.sleeping, startedBefore]]),
]) {
  const sleepRatio = beside.p50 / idle.c1.p50;
  console.log(
    `p50 beside 8 sleeping runs${label}: ${sleepRatio.toFixed(2)}× idle (target ≤ 2×: ${verdict(sleepRatio <= 2)}); ${beside.runs} runs while they slept, the slowest ${beside.slowest.toFixed(1)} ms`,
  );
}
for (const [label, side] of [
  ['', steward],
  [' (steward start in its own process)', started],
  [' (api + worker procs)', apart],
  ...(startedBefore === undefined
    ? []
    : [[` (before: ${BEFORE}, steward start in its own process)`, startedBefore]]),
]) {
  const p50Ratio = median(side.p50Ratios);
  const rateRatio = median(side.rateRatios);
  const firstRatio = side.first32.rate / side.rawFirst32.rate;
  const each = (ratios) => ratios.map((r) => r.toFixed(2)).join(', ');
  console.log(
    `p50 at concurrency 1${label}: ${p50Ratio.toFixed(2)}× raw BullMQ (target ≤ 2×: ${verdict(p50Ratio <= 2)}); cycles ${each(side.p50Ratios)}`,
  );
  if (side.apart) {
    console.log(
      `  against raw BullMQ with its worker in a process of its own (${side.apart.c1.p50.toFixed(3)} ms, ${Math.round(side.apart.c32.rate)} runs/s): p50 ${median(side.apart.p50Ratios).toFixed(2)}×, cycles ${each(side.apart.p50Ratios)}; runs/s ${median(side.apart.rateRatios).toFixed(2)}×, cycles ${each(side.apart.rateRatios)}`,
    );
  }
  const f3 = (v) => v.toFixed(3);
  const rawPart = side.apart
    ? `raw BullMQ, worker apart ${f3(side.apart.c1.p50)}`
    : `raw BullMQ ${f3(side.rawC1.p50)}`;
  console.log(
    `  against its parts added up (${rawPart} + bare HTTP ${f3(side.httpC1.p50)} + script thread ${f3(side.threadC1.p50)} = ${f3(side.partsSum)} ms): ${median(side.partsRatios).toFixed(2)}×; cycles ${each(side.partsRatios)}`,
  );
  console.log(
    `runs/s at concurrency 32${label}: ${rateRatio.toFixed(2)}× raw BullMQ (target ≥ 0.5×: ${verdict(rateRatio >= 0.5)}); cycles ${each(side.rateRatios)}; first round ${firstRatio.toFixed(2)}× raw's first round`,
  );
}

await redis.stop();
rmSync(dir, { recursive: true, force: true });
// BullMQ never closes the connection the queue client hands its QueueEvents: exit, not wait.
process.exit(0);
