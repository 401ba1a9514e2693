import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export interface EmbeddedRedis {
  url: string;
  stop(): Promise<void>;
}

/** True when something answers PING at `url` within `timeoutMs`. */
export async function redisAnswers(url: string, timeoutMs = 800): Promise<boolean> {
  const probe = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
    enableOfflineQueue: false,
  });
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

export function redisServerOnPath(): string | null {
  try {
    return (
      execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || null
    );
  } catch {
    return null;
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Starts a private redis-server with AOF on, its files under `dir`, bound to loopback on a free
 * port. It lives as long as this process: it is stopped on `stop()` and killed if we die.
 */
export async function startEmbeddedRedis(
  dir: string,
  log?: Logger,
  binary = 'redis-server',
): Promise<EmbeddedRedis> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const port = await freePort();
  const child: ChildProcess = spawn(
    binary,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      path.resolve(dir),
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--save',
      '',
      '--protected-mode',
      'yes',
      '--daemonize',
      'no',
      '--loglevel',
      'warning',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A binary that cannot be spawned (missing, not executable) emits 'error' instead of exiting;
  // unheard, that would kill this process rather than reject below.
  let spawnError: Error | undefined;
  child.once('error', (err) => (spawnError = err));
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (!(await redisAnswers(url, 300))) {
    if (spawnError || child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      const why = spawnError?.message ?? (stderr.trim() || 'no output');
      throw new Error(`embedded redis-server did not start: ${why}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const onExit = () => child.kill('SIGTERM');
  process.once('exit', onExit);
  log?.info({ url, dir }, 'started embedded redis-server (AOF on)');
  return {
    url,
    async stop() {
      process.removeListener('exit', onExit);
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
