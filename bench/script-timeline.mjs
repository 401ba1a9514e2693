// Where the time of one script run at concurrency 1 goes: POST /api/scripts/:name/test against
// Steward in this process (as bench:scripts measures it), with every Redis command, the script
// thread's run and both ends of the HTTP exchange stamped. Prints the median of each stage over
// BENCH_RUNS runs (after a warm-up), and the stamps of the median run. With BENCH_GAP_MS, each
// run starts that long after the one before, on an idle process, as a person's runs do. Stamping costs a few
// microseconds per event; the stages are for comparing with each other, and bench:scripts gives
// the figures.
//
// `node bench/script-timeline.mjs` after `npm run build`.
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import IORedis from 'ioredis';
import { Piscina } from 'piscina';
import { prepare, startInProcess, testRun } from './script-runs-setup.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 1000);
/** A pause before each run (BENCH_GAP_MS): 0 runs them back to back, as bench:scripts does. */
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 0);

const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-bench-timeline-'));
const local = await startInProcess(dir);
const bearer = await prepare(local.base);

/** Stamps of the run being watched: [ms since its start, what]. */
let stamps = null;
let t0 = 0;
const stamp = (what) => stamps?.push([performance.now() - t0, what]);

// Lua scripts by their SHA, named as their clients defined them (BullMQ's and ours).
const scriptName = (client, sha) => {
  for (const [name, script] of Object.entries(client.scriptsSet ?? {})) {
    if (script.sha === sha) return name;
  }
  return sha.slice(0, 8);
};
const send = IORedis.prototype.sendCommand;
IORedis.prototype.sendCommand = function (command, stream) {
  const name =
    command.name === 'evalsha' ? scriptName(this, String(command.args[0])) : command.name;
  stamp(`redis ${name} sent`);
  command.promise.then(
    () => stamp(`redis ${name} answered`),
    () => stamp(`redis ${name} failed`),
  );
  return send.call(this, command, stream);
};
const runOnThread = Piscina.prototype.run;
Piscina.prototype.run = function (...args) {
  stamp('thread run sent');
  const done = runOnThread.apply(this, args);
  done.then(() => stamp('thread run answered'));
  return done;
};
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, ...args) {
  if (event === 'request') stamp('server: request');
  return emit.call(this, event, ...args);
};
const end = http.ServerResponse.prototype.end;
http.ServerResponse.prototype.end = function (...args) {
  stamp('server: response written');
  return end.apply(this, args);
};

/**
 * The stages of a run, each from the first stamp matching `from` to the first matching `to`
 * after it; the search starts after the previous stage's end (the tail of the run before may
 * still be answering when a run starts).
 */
const stages = [
  ['HTTP request in (client write → request event)', 'start', 'server: request'],
  ['auth, routing, hooks → first Redis command', 'server: request', /redis .* sent/],
  ['rate-limit count + script check (round trip)', /redis .* sent/, /redis hgetall answered/],
  [
    '→ job added (BullMQ addStandardJob sent)',
    /redis hgetall answered/,
    /redis addStandardJob\S* sent/,
  ],
  [
    'add → the worker hears of it (marker)',
    /redis addStandardJob\S* sent/,
    /redis bzpopmin answered/,
  ],
  [
    'worker takes the job (moveToActive)',
    /redis bzpopmin answered/,
    /redis moveToActive\S* answered/,
  ],
  [
    'job → script thread (BullMQ, processor, task hand-off)',
    /redis moveToActive\S* answered/,
    'thread run sent',
  ],
  ['script thread (hop, run, hop back)', 'thread run sent', 'thread run answered'],
  ['result → response written', 'thread run answered', 'server: response written'],
  ['HTTP response out, read by the client', 'server: response written', 'end'],
];
const matches = (what, pattern) =>
  typeof pattern === 'string' ? what === pattern : pattern.test(what);

function split(run) {
  const out = [];
  let at = 0;
  for (const [, from, to] of stages) {
    const i = run.findIndex(([, what], k) => k >= at && matches(what, from));
    const j = run.findIndex(([, what], k) => k > i && matches(what, to));
    if (i < 0 || j < 0) return null;
    out.push(run[j][0] - run[i][0]);
    at = j;
  }
  return out;
}

for (let i = 0; i < 2000; i++) await testRun(local.base, bearer);
const runs = [];
for (let i = 0; i < RUNS; i++) {
  stamps = [];
  t0 = performance.now();
  stamps.push([0, 'start']);
  await testRun(local.base, bearer);
  stamps.push([performance.now() - t0, 'end']);
  runs.push(stamps);
  stamps = null;
  if (GAP_MS > 0) await new Promise((resolve) => setTimeout(resolve, GAP_MS));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const splits = runs.map(split).filter((s) => s !== null);
const total = median(runs.map((r) => r.at(-1)[0]));
console.log(
  `one script run at concurrency 1: median ${(total * 1000).toFixed(0)} µs over ${RUNS} runs`,
);
console.log(`${'stage'.padEnd(52)} ${'median µs'.padStart(10)}`);
stages.forEach(([label], k) => {
  console.log(
    `${label.padEnd(52)} ${(median(splits.map((s) => s[k])) * 1000).toFixed(0).padStart(10)}`,
  );
});
console.log(`(${splits.length} of ${RUNS} runs had every stage in this order)`);
const byTotal = [...runs].sort((a, b) => a.at(-1)[0] - b.at(-1)[0]);
console.log('\nstamps of the median run (µs):');
for (const [at, what] of byTotal[Math.floor(byTotal.length / 2)]) {
  console.log(`${(at * 1000).toFixed(0).padStart(7)}  ${what}`);
}

await local.stop();
await local.redis.stop();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
