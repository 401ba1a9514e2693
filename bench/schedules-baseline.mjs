// Baseline for bench/schedules.mjs: plain BullMQ as its documentation suggests for cron jobs,
// one job scheduler per schedule (`upsertJobScheduler` with the pattern) and worker processes
// whose processor does nothing. Same count, pattern, worker processes and concurrency as the
// Steward run. A run's lag is the job's `processedOn` (when a worker took it) minus its fire
// time (`prevMillis`): the moment Steward's `started_at` stands for.
// `node bench/schedules-baseline.mjs` prints one JSON line; `--worker URL PREFIX CONCURRENCY` is
// the worker process it spawns.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { pct, sleep, startRedis } from './lib.mjs';

const queueName = 'baseline-schedules';

if (process.argv[2] === '--worker') {
  const [, , , url, prefix, concurrency] = process.argv;
  const connection = new Redis(url, { maxRetriesPerRequest: null });
  const worker = new Worker(queueName, async () => {}, {
    connection,
    prefix,
    concurrency: Number(concurrency),
  });
  process.once('SIGTERM', () => void worker.close().then(() => process.exit(0)));
} else {
  const COUNT = Number(process.env.SCHEDULES ?? 10_000);
  const WORKERS = Number(process.env.WORKERS ?? 2);
  const CONCURRENCY = Number(process.env.CONCURRENCY ?? 64);
  const prefix = 'baseline';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-bench-baseline-'));
  const redis = await startRedis(dir);
  const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue(queueName, { connection, prefix });
  const children = [];
  try {
    for (let i = 0; i < COUNT; i += 200) {
      await Promise.all(
        Array.from({ length: Math.min(200, COUNT - i) }, (_, j) =>
          queue.upsertJobScheduler(`s-${i + j}`, { pattern: '* * * * *' }, { name: 'run' }),
        ),
      );
    }
    for (let i = 0; i < WORKERS; i++) {
      const args = [new URL(import.meta.url).pathname, '--worker', redis.url, prefix];
      children.push(spawn(process.execPath, [...args, String(CONCURRENCY)], { stdio: 'inherit' }));
    }
    while ((await queue.getWorkersCount()) < WORKERS) await sleep(100);
    let boundary = Math.ceil(Date.now() / 60_000) * 60_000;
    if (boundary - Date.now() < 5000) boundary += 60_000;

    /** Lags of one boundary's jobs, read once they have all completed (or 55 s passed). */
    async function measure(at) {
      let lags = [];
      const deadline = at + 55_000;
      await sleep(at + 5000 - Date.now());
      while (Date.now() < deadline) {
        const done = await queue.getJobs(['completed'], 0, -1);
        lags = done.filter((j) => j.opts.prevMillis === at).map((j) => j.processedOn - at);
        if (lags.length >= COUNT) break;
        await sleep(3000);
      }
      lags.sort((a, b) => a - b);
      return { runs: lags.length, p50: pct(lags, 50), p99: pct(lags, 99), max: lags.at(-1) };
    }
    const cold = await measure(boundary);
    const warm = await measure(boundary + 60_000);
    process.stdout.write(`${JSON.stringify({ cold, warm })}\n`);
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(
      children.map((c) => new Promise((r) => (c.exitCode !== null ? r() : c.once('exit', r)))),
    );
    await queue.close();
    connection.disconnect();
    redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
