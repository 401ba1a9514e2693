// Script-thread soak: trivial runs through the worker's Piscina pool (threads, compute slots,
// host-call routing, the compiled-program cache), with the run's memory limit at 16 MiB as in the
// report this bench answers. RSS of the process is read every 10,000 runs; the figure that
// matters is the growth from 10,000 runs (everything warm) to the end, per run.
// Baseline: the same loop with a run that never leaves the main thread (the interpreter called
// directly), so the pool's own cost per run stands out from the machine's allocator noise.
import { configSchema } from '../dist/config/schema.js';
import { execModule, callFunction, toStarlark } from '../dist/starlark/index.js';
import { createScriptPool } from '../dist/workers/script-runs/pool.js';

const N = Number(process.env.SOAK_RUNS ?? 100_000);
const limits = { ...configSchema.parse({}).scripts.limits, memory_mb: 16 };
const source = 'def main():\n    return {"sum": args["a"] + args["b"]}\n';
const rss = () => process.memoryUsage().rss / 1024 / 1024;

async function soak(label, runOne) {
  const marks = [];
  const failures = [];
  for (let i = 1; i <= N; i++) {
    const error = await runOne(i);
    if (error) failures.push(`run ${i}: ${error}`);
    if (i % 10_000 === 0) marks.push([i, rss()]);
  }
  const [first, last] = [marks[0], marks.at(-1)];
  const perRun = ((last[1] - first[1]) * 1024 * 1024) / (last[0] - first[0]);
  console.log(
    `${label.padEnd(26)} ${marks.map(([, mb]) => mb.toFixed(0).padStart(5)).join('')}   ${perRun.toFixed(0).padStart(6)} B/run   ${failures.length} failed`,
  );
  if (failures.length) console.log(`  first failures: ${failures.slice(0, 3).join('; ')}`);
  return perRun;
}

console.log(`RSS (MB) every 10,000 runs, ${N} runs, memory_mb ${limits.memory_mb}`);
const base = await soak('interpreter, main thread', async () => {
  const mod = execModule({
    file: 't.star',
    source,
    predeclared: { args: toStarlark({ a: 1, b: 2 }) },
  });
  callFunction(mod.globals.get('main'), [], null, mod.thread);
  return null;
});
const pool = createScriptPool({ threads: 2, computeSlots: 2, limits });
const pooled = await soak('script pool, 2 threads', async () => {
  const r = await pool.run(
    {
      name: 't.star',
      hash: 'h',
      source,
      args: { a: 1, b: 2 },
      deadline: Date.now() + 5000,
      limits,
      declaredSecrets: [],
      secretValues: new Map(),
    },
    new AbortController().signal,
  );
  return r.success ? null : r.error;
});
await pool.destroy();
console.log(
  `growth after warm-up: pool ${pooled.toFixed(0)} B/run vs baseline ${base.toFixed(0)} B/run (target: flat, under 100 B/run)`,
);
