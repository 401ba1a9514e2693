// Small helpers shared by the benchmarks.
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** A private redis-server on a free port (never the machine's own). */
export async function startRedis(dir) {
  const port = await freePort();
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir],
    { stdio: 'ignore' },
  );
  await sleep(300);
  return { url: `redis://127.0.0.1:${port}`, stop: () => proc.kill() };
}

/** A child process with an IPC channel running `file`; resolves with it once it sent its first message. */
export async function child(file, args = []) {
  const proc = spawn(process.execPath, [file, ...args], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const first = await new Promise((resolve, reject) => {
    proc.once('message', resolve);
    proc.once('exit', (code) => reject(new Error(`${file} exited (${code})`)));
  });
  const stop = async () => {
    if (proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  };
  return { proc, first, stop };
}

/** The value at percentile p of an ascending array. */
export const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

/** p50 and p99 of `times` (ms, sorted here) and `rate` per second. */
export function summary(times, rate) {
  times.sort((a, b) => a - b);
  return { p50: pct(times, 50), p99: pct(times, 99), rate };
}

/** `total` calls of `run`, `concurrency` at a time: their p50, p99 and calls per second. */
export async function measure(total, concurrency, run) {
  const times = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const t0 = performance.now();
        await run();
        times.push(performance.now() - t0);
      }
    }),
  );
  return summary(times, total / ((performance.now() - started) / 1000));
}

/**
 * The environment of a Steward process under a bench: its Redis, loopback port, quiet log, and
 * data and workspace folders named `data<suffix>` and `ws<suffix>` under `dir`.
 */
export const stewardEnv = ({ dir, redisUrl, port, suffix = '', ...extra }) => ({
  PATH: process.env.PATH,
  REDIS_URL: redisUrl,
  STEWARD_PORT: String(port),
  STEWARD_HOST: '127.0.0.1',
  STEWARD_LOG_LEVEL: 'error',
  STEWARD_DATA_DIR: path.join(dir, `data${suffix}`),
  STEWARD_WORKSPACE: path.join(dir, `ws${suffix}`),
  ...extra,
});
