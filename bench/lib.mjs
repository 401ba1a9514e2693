// Small helpers shared by the benchmarks.
import { spawn } from 'node:child_process';
import net from 'node:net';

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

/** The value at percentile p of an ascending array. */
export const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
