// Schedules at scale: N enabled schedules firing every minute, run by 2 `steward worker`
// processes. Reports scheduling lag (run start − fire time) p50/p99/max over one minute
// boundary, and Redis memory per schedule. Target: lag p99 ≤ 1 s.
// Two boundaries are measured: the first after the workers start, and the next minute's.
// A run's start is its history entry's `started_at`: taken by the worker right before the
// round trip that claims the firing (SET NX on schedule id + fire time), after which the run
// executes at once (here: the script runner looks the script up and refuses it). Runs are only
// claimed when the process has a free run slot (`schedules.concurrency`), so a run claimed is a
// run executing; the lag includes BullMQ's tick job pick-up, reading the schedules and waiting
// for a free slot.
// Run with `npm run bench:schedules` (SCHEDULES=10000 by default; a private redis-server).
// WORKER_NODE_ARGS passes flags to the worker processes (e.g. "--cpu-prof --cpu-prof-dir=/tmp/p").
// Then the baseline (bench/schedules-baseline.mjs: plain BullMQ, one job scheduler per schedule,
// a no-op processor, same workers and concurrency) runs alone, and the lag ratios are printed;
// BASELINE=0 skips it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../dist/config/load.js';
import { createLogger } from '../dist/log/logger.js';
import { createContext } from '../dist/runtime/context.js';
import { createSchedules } from '../dist/schedules/create-schedules.js';
import { createEgress } from '../dist/net/egress.js';
import { startEmbeddedRedis } from '../dist/store/embedded-redis.js';
import { keys } from '../dist/store/keys.js';

const COUNT = Number(process.env.SCHEDULES ?? 10_000);
const WORKERS = Number(process.env.WORKERS ?? 2);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 64);
const cli = new URL('../dist/cli/main.js', import.meta.url).pathname;
const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-bench-sched-'));
const prefix = 'bench:';

const redis = await startEmbeddedRedis(path.join(dir, 'redis'));
const configFile = path.join(dir, 'steward.yaml');
writeFileSync(configFile, `schedules:\n  concurrency: ${CONCURRENCY}\n`);
const config = loadConfig({
  cwd: dir,
  env: {},
  overrides: {
    'redis.url': redis.url,
    'redis.prefix': prefix,
    'log.level': 'warn',
    data_dir: path.join(dir, 'data'),
    workspace: path.join(dir, 'ws'),
  },
});
const ctx = await createContext(config, createLogger('warn'), redis.url);
const schedules = createSchedules({
  redis: ctx.redis,
  queues: ctx.queues,
  config,
  log: ctx.log,
  egress: createEgress({
    allow: [],
    timeoutMs: config.egress.timeout,
    maxBodyBytes: config.egress.max_body_bytes,
    maxRedirects: 0,
  }),
  redact: (text) => text,
});
const children = [];
let results = null;

// CPU seconds used so far by a child process (utime + stime, clock ticks of 10 ms) and by Redis.
const cpuOf = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const redisCpu = async () => {
  const info = await ctx.redis.info('cpu');
  const num = (k) => Number(new RegExp(`${k}:([\\d.]+)`).exec(info)[1]);
  return (num('used_cpu_user') + num('used_cpu_sys')) * 1000;
};
const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await ctx.redis.info('memory'))[1]);
const pct = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

try {
  const before = await usedMemory();
  const t0 = Date.now();
  const ids = [];
  const batch = 200;
  for (let i = 0; i < COUNT; i += batch) {
    const made = await Promise.all(
      Array.from({ length: Math.min(batch, COUNT - i) }, (_, j) =>
        schedules.service.create({
          name: `bench-${i + j}`,
          cron_expr: '* * * * *',
          type: 'script',
          // No such script: the run is refused at once, so the bench measures scheduling alone.
          script_name: 'absent.star',
        }),
      ),
    );
    ids.push(...made.map((s) => s.id));
  }
  const createMs = Date.now() - t0;
  const afterCreate = await usedMemory();
  // Per schedule: its hash, plus everything the scheduler keeps (per-schedule job schedulers
  // and their next jobs, or the shared tick scheduler, its next job and the group's set and
  // index) divided by the number of schedules.
  const sample = ids[0];
  const memoryOf = async (pattern) => {
    let bytes = 0;
    for (const k of (await ctx.redis.call('KEYS', pattern)) ?? []) {
      bytes += Number((await ctx.redis.call('MEMORY', 'USAGE', k)) ?? 0);
    }
    return bytes;
  };
  const shared =
    (await memoryOf(`${prefix}bull:schedule-runs:repeat*`)) +
    (await memoryOf(`${prefix}schedules:*`));
  const sampleBytes =
    Number((await ctx.redis.call('MEMORY', 'USAGE', `${prefix}${keys.schedule(sample)}`)) ?? 0) +
    Math.round(shared / COUNT);

  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    REDIS_URL: redis.url,
    STEWARD_REDIS_PREFIX: prefix,
    STEWARD_DATA_DIR: path.join(dir, 'data'),
    STEWARD_WORKSPACE: path.join(dir, 'ws'),
    STEWARD_LOG_LEVEL: 'warn',
    STEWARD_CONFIG: configFile,
  };
  for (let i = 0; i < WORKERS; i++) {
    const child = spawn(
      process.execPath,
      [...(process.env.WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean), cli, 'worker'],
      {
        cwd: dir,
        env,
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    children.push(child);
  }
  const queue = ctx.queues.queue('scheduleRuns');
  while ((await queue.getWorkersCount()) < WORKERS) await new Promise((r) => setTimeout(r, 100));

  // The first boundary at least 5 s away, so every worker is settled before it.
  let boundary = Math.ceil(Date.now() / 60_000) * 60_000;
  if (boundary - Date.now() < 5000) boundary += 60_000;
  process.stdout.write(
    `${COUNT} schedules created in ${createMs} ms; waiting for ${new Date(boundary).toISOString()}\n`,
  );
  /** One boundary's runs: lags from the recorded started_at, CPU used, BullMQ's tick pick-up. */
  async function measure(at) {
    const iso = new Date(at).toISOString();
    await new Promise((r) => setTimeout(r, at - 1000 - Date.now()));
    const cpuBefore = { workers: children.map((c) => cpuOf(c.pid)), redis: await redisCpu() };
    const lags = [];
    const pending = new Set(ids);
    const deadline = at + 55_000;
    // Lags come from the recorded started_at, not from when this loop sees a run: it first polls
    // 5 s after the boundary, then every 3 s, so that its 10,000 LRANGEs do not compete with the
    // burst it measures.
    while (pending.size > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, Math.max(3000, at + 5000 - Date.now())));
      const list = [...pending];
      for (let i = 0; i < list.length; i += 500) {
        const chunk = list.slice(i, i + 500);
        const heads = await Promise.all(
          chunk.map((id) => ctx.redis.lrange(keys.scheduleRuns(id), 0, 5)),
        );
        chunk.forEach((id, k) => {
          const entry = heads[k].map((raw) => JSON.parse(raw)).find((e) => e.scheduled_at === iso);
          if (entry) {
            lags.push(Date.parse(entry.started_at) - at);
            pending.delete(id);
          }
        });
      }
    }
    const workerCpu = children.reduce((sum, c, i) => sum + cpuOf(c.pid) - cpuBefore.workers[i], 0);
    const redisCpuMs = (await redisCpu()) - cpuBefore.redis;
    lags.sort((a, b) => a - b);
    // When BullMQ handed the boundary's tick job to a worker (its processedOn).
    const tickJobs = await queue.getJobs(['completed', 'failed', 'active'], 0, 50);
    const tick = tickJobs.find((j) => j.name === 'tick' && j.opts.prevMillis === at);
    const runs = COUNT - pending.size;
    return {
      runs,
      pickup: tick?.processedOn ? tick.processedOn - at : NaN,
      lags,
      workerCpu: Math.round((workerCpu * 1000) / Math.max(1, runs)),
      redisCpu: Math.round((redisCpuMs * 1000) / Math.max(1, runs)),
    };
  }

  // The first boundary comes right after the workers started (their code not yet optimised by
  // V8); the next one is what a running deployment sees every minute.
  const cold = await measure(boundary);
  const afterRun = await usedMemory();
  const warm = await measure(boundary + 60_000);
  const both = (f) => `${f(cold)} | ${f(warm)}`;
  const rows = [
    ['schedules', COUNT],
    ['worker processes × concurrency', `${WORKERS} × ${CONCURRENCY}`],
    ['boundary', 'first after start | next minute'],
    ['runs at the boundary', both((m) => `${m.runs} / ${COUNT}`)],
    ['tick job picked up by a worker (ms after the fire time)', both((m) => m.pickup)],
    ['lag min (ms)', both((m) => m.lags[0])],
    ['lag p10 (ms)', both((m) => pct(m.lags, 10))],
    ['lag p50 (ms)', both((m) => pct(m.lags, 50))],
    ['lag p99 (ms)', both((m) => pct(m.lags, 99))],
    ['lag max (ms)', both((m) => m.lags[m.lags.length - 1])],
    ['target p99 ≤ 1000 ms', both((m) => (pct(m.lags, 99) <= 1000 ? 'met' : 'NOT met'))],
    ['CPU per run, worker processes (µs)', both((m) => m.workerCpu)],
    ['CPU per run, Redis (µs, includes this bench polling)', both((m) => m.redisCpu)],
    ['Redis bytes / schedule (INFO delta, idle)', Math.round((afterCreate - before) / COUNT)],
    ['Redis bytes / schedule (MEMORY USAGE: hash + share of scheduler keys)', sampleBytes],
    [
      'Redis bytes / schedule after one run (history, claim)',
      Math.round((afterRun - before) / COUNT),
    ],
  ];
  for (const [k, v] of rows) process.stdout.write(`${String(k).padEnd(70)} ${v}\n`);
  results = { cold, warm };
} finally {
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(
    children.map((c) => new Promise((r) => (c.exitCode !== null ? r() : c.once('exit', r)))),
  );
  await ctx.close();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
}

// The baseline runs after Steward's processes and Redis are gone, so the two never share the CPU.
if (results && process.env.BASELINE !== '0') {
  process.stdout.write('\nbaseline: one BullMQ job scheduler per schedule, no-op processor\n');
  const run = spawnSync(
    process.execPath,
    [new URL('./schedules-baseline.mjs', import.meta.url).pathname],
    {
      env: {
        ...process.env,
        SCHEDULES: String(COUNT),
        WORKERS: String(WORKERS),
        CONCURRENCY: String(CONCURRENCY),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
    },
  );
  if (run.status !== 0) {
    process.stderr.write(`baseline failed (exit ${run.status})\n`);
    process.exit(1);
  }
  const base = JSON.parse(run.stdout.trim().split('\n').at(-1));
  const ours = (m, p) => pct(m.lags, p);
  const rows = [
    ['baseline runs at the boundary', `${base.cold.runs} | ${base.warm.runs}`],
    ['baseline lag p50 (ms)', `${base.cold.p50} | ${base.warm.p50}`],
    ['baseline lag p99 (ms)', `${base.cold.p99} | ${base.warm.p99}`],
    [
      'Steward / baseline, lag p50',
      `${(ours(results.cold, 50) / base.cold.p50).toFixed(2)}× | ${(ours(results.warm, 50) / base.warm.p50).toFixed(2)}×`,
    ],
    [
      'Steward / baseline, lag p99',
      `${(ours(results.cold, 99) / base.cold.p99).toFixed(2)}× | ${(ours(results.warm, 99) / base.warm.p99).toFixed(2)}×`,
    ],
  ];
  for (const [k, v] of rows) process.stdout.write(`${String(k).padEnd(70)} ${v}\n`);
}
