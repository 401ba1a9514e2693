import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../src/store/embedded-redis.js';

/**
 * A real Sentinel deployment on loopback: a primary, its replicas and three sentinels
 * (`redis-server --sentinel`, quorum 2), failing over one second after the primary stops
 * answering. Nothing touches the machine's own Redis.
 */
export interface SentinelCluster {
  name: string;
  /** `host:port` of each sentinel, as `redis.sentinels` takes them. */
  sentinels: string[];
  primaryPort: number;
  replicaPorts: number[];
  /** Kills the primary outright (SIGKILL), as a crash would. */
  killPrimary(): void;
  /** Kills the server on `port` outright. */
  kill(port: number): void;
  /** The port the sentinels name as primary now. */
  currentPrimary(): Promise<number>;
  stop(): Promise<void>;
}

const NAME = 'steward-test';

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function ask<T>(port: number, fn: (r: Redis) => Promise<T>): Promise<T> {
  const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
  r.on('error', () => {});
  try {
    await r.connect();
    return await fn(r);
  } finally {
    r.disconnect();
  }
}

export async function startSentinelCluster(replicas = 2): Promise<SentinelCluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-sentinel-'));
  const children: ChildProcess[] = [];
  try {
    return await start(dir, children, replicas);
  } catch (err) {
    // A cluster that never came up must not outlive the test.
    for (const child of children) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

async function start(
  dir: string,
  children: ChildProcess[],
  replicas: number,
): Promise<SentinelCluster> {
  const byPort = new Map<number, ChildProcess>();
  const server = (args: string[]) => {
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    children.push(child);
    const port = Number(args[args.indexOf('--port') + 1]);
    if (Number.isInteger(port)) byPort.set(port, child);
    return child;
  };
  const base = (port: number, sub: string) => {
    const d = path.join(dir, sub);
    mkdirSync(d, { recursive: true });
    return ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', d];
  };
  const primaryPort = await freePort();
  const primary = server(base(primaryPort, 'primary'));
  const replicaPorts: number[] = [];
  for (let i = 0; i < replicas; i++) {
    const port = await freePort();
    replicaPorts.push(port);
    server([...base(port, `replica-${i}`), '--replicaof', '127.0.0.1', String(primaryPort)]);
  }
  for (const port of replicaPorts) {
    await until(
      () => ask(port, async (r) => (await r.info('replication')).includes('master_link_status:up')),
      10_000,
      'the replicas to sync',
    );
  }
  const sentinelPorts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    sentinelPorts.push(port);
    const conf = path.join(dir, `sentinel-${i}.conf`);
    writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${NAME} 127.0.0.1 ${primaryPort} 2`,
        `sentinel down-after-milliseconds ${NAME} 1000`,
        `sentinel failover-timeout ${NAME} 5000`,
        `sentinel parallel-syncs ${NAME} 1`,
        '',
      ].join('\n'),
    );
    server([conf, '--sentinel']);
  }
  const currentPrimary = async () => {
    const [, port] = (await ask(sentinelPorts[0] as number, (r) =>
      r.call('SENTINEL', 'get-master-addr-by-name', NAME),
    )) as [string, string];
    return Number(port);
  };
  // Every sentinel knows the replica and the other sentinels before a failover can work.
  await until(
    async () => {
      for (const port of sentinelPorts) {
        const info = (await ask(port, (r) => r.call('SENTINEL', 'master', NAME))) as string[];
        const field = (k: string) => Number(info[info.indexOf(k) + 1]);
        if (field('num-slaves') < replicas || field('num-other-sentinels') < 2) return false;
      }
      return true;
    },
    20_000,
    'the sentinels to see each other and the replicas',
  );
  return {
    name: NAME,
    sentinels: sentinelPorts.map((p) => `127.0.0.1:${p}`),
    primaryPort,
    replicaPorts,
    killPrimary: () => void primary.kill('SIGKILL'),
    kill: (port) => void byPort.get(port)?.kill('SIGKILL'),
    currentPrimary,
    async stop() {
      for (const child of children) child.kill('SIGKILL');
      await Promise.all(
        children.map((c) =>
          c.exitCode !== null || c.signalCode !== null
            ? undefined
            : new Promise((r) => c.once('exit', r)),
        ),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
