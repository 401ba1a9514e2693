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

  it('answers a caller whose script run cannot finish with a clean 503, removes its job, and exits 0', async () => {
    const { port, api, redis } = await started();
    const json = async (method: string, url: string, body?: unknown, headers = {}) => {
      const res = await fetch(`http://127.0.0.1:${port}${url}`, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, headers: res.headers, body: await res.json().catch(() => null) };
    };
    const admin = { username: 'admin', password: 'correct horse battery staple' };
    await json('POST', '/api/setup', { ...admin, confirm_password: admin.password });
    const login = await json('POST', '/api/auth/login', admin);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const session = await json('GET', '/api/session', undefined, { cookie });
    const auth = {
      authorization: `Bearer ${(session.body as { access_token: string }).access_token}`,
    };
    await json('POST', '/api/scripts', { name: 'wait.star', source: 'result = 1\n' }, auth);
    await json('POST', '/api/scripts/wait.star/approve', undefined, auth);
    // No worker runs: the caller would wait its whole deadline.
    const pending = json('POST', '/api/scripts/wait.star/test', { args: {} }, auth);
    await new Promise((r) => setTimeout(r, 500));
    const exited = new Promise<number | null>((r) => api.once('exit', (code) => r(code)));
    const signalled = Date.now();
    api.kill('SIGTERM');
    const answer = await pending;
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({
      error: 'service_unavailable',
      message: 'Steward is shutting down and this run could not finish; try again',
    });
    expect(await exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(10_000);
    // The job no worker took went with its caller: nothing is left to run later.
    const { Queue } = await import('bullmq');
    const queue = new Queue('script-runs', {
      connection: { url: redis.url, maxRetriesPerRequest: null },
      prefix: 'dr:bull',
    });
    try {
      expect(await queue.getJobCounts('waiting', 'active', 'delayed')).toEqual({
        waiting: 0,
        active: 0,
        delayed: 0,
      });
    } finally {
      await queue.close();
    }
  }, 60_000);
});
