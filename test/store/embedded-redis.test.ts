import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  freePort,
  redisAnswers,
  redisServerOnPath,
  startEmbeddedRedis,
} from '../../src/store/embedded-redis.js';
import { createRedis } from '../../src/store/redis.js';
import { testRedisUrl } from '../support/redis.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-embedded-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('redis probes', () => {
  it('redisAnswers says whether something answers PING', async () => {
    expect(await redisAnswers(testRedisUrl())).toBe(true);
    expect(await redisAnswers(`redis://127.0.0.1:${await freePort()}`, 300)).toBe(false);
  });

  it('redisServerOnPath finds the redis-server binary', () => {
    const found = redisServerOnPath();
    expect(found).not.toBeNull();
    expect(path.basename(found ?? '')).toBe('redis-server');
  });

  it('freePort answers a loopback port nobody listens on', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    expect(await redisAnswers(`redis://127.0.0.1:${port}`, 300)).toBe(false);
  });
});

describe('embedded Redis', () => {
  it('starts a private redis-server with AOF under the data dir and stops it', async () => {
    const redisDir = path.join(dir, 'redis');
    const embedded = await startEmbeddedRedis(redisDir);
    expect(embedded.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    const redis = createRedis({ url: embedded.url, prefix: '' }, 'store');
    try {
      expect(await redis.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
      expect(await redis.config('GET', 'bind')).toEqual(['bind', '127.0.0.1']);
      await redis.set('k', 'v');
    } finally {
      redis.disconnect();
      await embedded.stop();
    }
    expect(statSync(redisDir).mode & 0o777).toBe(0o700);
    expect(readdirSync(redisDir).length).toBeGreaterThan(0);
    expect(await redisAnswers(embedded.url, 300)).toBe(false);
    // Stopping twice is harmless.
    await embedded.stop();
  });

  it('keeps what was written across a restart on the same dir (AOF)', async () => {
    const redisDir = path.join(dir, 'persist');
    const first = await startEmbeddedRedis(redisDir);
    const a = createRedis({ url: first.url, prefix: '' }, 'store');
    await a.set('kept', 'yes');
    a.disconnect();
    await first.stop();
    const second = await startEmbeddedRedis(redisDir);
    const b = createRedis({ url: second.url, prefix: '' }, 'store');
    try {
      expect(await b.get('kept')).toBe('yes');
    } finally {
      b.disconnect();
      await second.stop();
    }
  });

  it("fails with the server's own message when it exits instead of starting", async () => {
    const fake = path.join(dir, 'exiting-redis-server');
    writeFileSync(fake, '#!/bin/sh\necho "FATAL CONFIG FILE ERROR" >&2\nexit 1\n', { mode: 0o755 });
    await expect(startEmbeddedRedis(path.join(dir, 'x'), undefined, fake)).rejects.toThrow(
      'embedded redis-server did not start: FATAL CONFIG FILE ERROR',
    );
  });

  // A binary that cannot be spawned at all (ENOENT, EACCES) raised an uncaught exception that
  // killed the process instead of the promised rejection. Run in a child process so a crash
  // would stay there.
  it('rejects, rather than crashing the process, when the binary cannot be spawned', () => {
    const module = path.resolve(__dirname, '../../dist/store/embedded-redis.js');
    const script = `import(${JSON.stringify(pathToFileURL(module).href)})
      .then((m) => m.startEmbeddedRedis(${JSON.stringify(path.join(dir, 'y'))}, undefined, ${JSON.stringify(path.join(dir, 'missing'))}))
      .catch((e) => console.log('rejected: ' + e.message));`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 15_000 });
    expect(r.stdout).toMatch(/^rejected: embedded redis-server did not start/);
    expect(r.status).toBe(0);
  });
});
