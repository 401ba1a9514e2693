import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { testRedisUrl } from '../support/redis.js';

const cli = path.resolve(__dirname, '../../dist/cli/main.js');

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait for the exit (SIGKILL after 10 s). */
  stop(): Promise<void>;
  kill(): Promise<void>;
}

/**
 * `steward worker` as a child process on the test's Redis prefix and dirs; `config` (YAML text)
 * is written to `<dir>/steward.yaml` and used through STEWARD_CONFIG.
 */
export function spawnWorker(opts: { prefix: string; dir: string; config?: string }): WorkerProcess {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: opts.dir,
    REDIS_URL: testRedisUrl(),
    STEWARD_REDIS_PREFIX: opts.prefix,
    STEWARD_DATA_DIR: path.join(opts.dir, 'data'),
    STEWARD_WORKSPACE: path.join(opts.dir, 'workspace'),
    STEWARD_LOG_LEVEL: 'warn',
  };
  if (opts.config !== undefined) {
    const file = path.join(opts.dir, 'steward.yaml');
    writeFileSync(file, opts.config);
    env.STEWARD_CONFIG = file;
  }
  const child = spawn(process.execPath, [cli, 'worker'], {
    cwd: opts.dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stopWith = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return {
    child,
    output: () => out,
    stop: () => stopWith('SIGTERM'),
    kill: () => stopWith('SIGKILL'),
  };
}
