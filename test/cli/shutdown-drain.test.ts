import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/store/embedded-redis.js';
import { ownRedis, type OwnRedis } from '../support/own-redis.js';
import { roleEnv, spawnRole } from '../support/processes.js';

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function get(
  port: number,
  url: string,
): Promise<{ status: number; body: string; connection?: string } | null> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: url, agent, timeout: 3000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body,
          ...(res.headers.connection ? { connection: res.headers.connection } : {}),
        }),
      );
    });
    req.on('error', () => resolve(null));
    req.on('timeout', () => req.destroy());
  });
}

describe('shutdown that drains (steward api, real process)', () => {
  const dirs: string[] = [];
  const servers: OwnRedis[] = [];
  afterAll(async () => {
    agent.destroy();
    for (const redis of servers) await redis.cleanup();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function started(): Promise<{
    port: number;
    redis: OwnRedis;
    api: ReturnType<typeof spawnRole>;
  }> {
    const redis = await ownRedis();
    servers.push(redis);
    await redis.start();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-drain-'));
    dirs.push(dir);
    const port = await freePort();
    const api = spawnRole('api', roleEnv(redis.url, 'dr:', dir, { STEWARD_PORT: String(port) }));
    const deadline = Date.now() + 30_000;
    while ((await get(port, '/api/setup/status'))?.status !== 200) {
      if (Date.now() > deadline || api.exitCode !== null) throw new Error('api did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    return { port, redis, api };
  }

  for (const redisDown of [false, true]) {
    it(`keeps answering probes with 503 during the grace, then exits 0 within 10 s with keep-alive clients${redisDown ? ' (Redis down)' : ''}`, async () => {
      const { port, redis, api } = await started();
      // A keep-alive connection left idle in the agent, as a load balancer keeps one.
      expect((await get(port, '/healthz'))?.status).toBe(200);
      if (redisDown) await redis.kill();
      const exited = new Promise<number | null>((r) => api.once('exit', (code) => r(code)));
      const signalled = Date.now();
      api.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 300));
      const healthz = await get(port, '/healthz');
      expect(healthz).toMatchObject({
        status: 503,
        body: 'Service Unavailable',
        connection: 'close',
      });
      const ready = await get(port, '/ready');
      expect(ready?.status).toBe(503);
      expect(JSON.parse(ready?.body ?? '{}').ready).toBe(false);
      // Still answering well into the grace, not refused.
      await new Promise((r) => setTimeout(r, 1500));
      expect((await get(port, '/healthz'))?.status).toBe(503);
      expect(await exited).toBe(0);
      const took = Date.now() - signalled;
      expect(took).toBeGreaterThanOrEqual(2500);
      expect(took).toBeLessThan(10_000);
    }, 60_000);
  }
});
