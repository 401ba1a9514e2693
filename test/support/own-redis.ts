import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, redisAnswers } from '../../src/store/embedded-redis.js';

/** A redis-server of a test's own on a free port, for outages the shared one must not suffer. */
export interface OwnRedis {
  port: number;
  url: string;
  /** Starts (or starts again) the server on the same port. */
  start(): Promise<void>;
  /** Kills it at once, as a crash would. */
  kill(): Promise<void>;
  cleanup(): Promise<void>;
}

export async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-own-redis-'));
  let child: ChildProcess | undefined;
  const kill = async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child?.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };
  return {
    port,
    url,
    async start() {
      child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          dir,
          '--save',
          '',
          '--appendonly',
          'no',
        ],
        { stdio: 'ignore' },
      );
      const deadline = Date.now() + 10_000;
      while (!(await redisAnswers(url, 300))) {
        if (child.exitCode !== null || Date.now() > deadline)
          throw new Error('redis-server did not start');
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    kill,
    async cleanup() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
