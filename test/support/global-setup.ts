import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort, redisAnswers } from '../../src/store/embedded-redis.js';

/**
 * One Redis for the whole run, never the machine's own on 6379: REDIS_URL when set, else a
 * Testcontainers Redis when a Docker engine exists, else a private redis-server on a free port.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const fromEnv = process.env.REDIS_URL;
  if (fromEnv) {
    project.provide('redisUrl', fromEnv);
    return async () => {};
  }
  const container = await tryContainer();
  if (container) {
    project.provide('redisUrl', container.url);
    return container.stop;
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-test-redis-'));
  const port = await freePort();
  const child: ChildProcess = spawn(
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
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (!(await redisAnswers(url, 300))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error('could not start redis-server for the tests (apt-get install redis-server)');
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  project.provide('redisUrl', url);
  return async () => {
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 100));
    rmSync(dir, { recursive: true, force: true });
  };
}

async function tryContainer(): Promise<{ url: string; stop: () => Promise<void> } | null> {
  try {
    const { GenericContainer, Wait } = await import('testcontainers');
    const started = await new GenericContainer('redis:7-alpine')
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
      .withStartupTimeout(60_000)
      .start();
    return {
      url: `redis://${started.getHost()}:${started.getMappedPort(6379)}`,
      stop: async () => {
        await started.stop();
      },
    };
  } catch {
    // No container runtime here: testcontainers rejects at once.
    return null;
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}
