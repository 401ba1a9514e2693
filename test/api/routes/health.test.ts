import net from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthRoutes } from '../../../src/api/routes/health.js';
import { createRedis, type Redis } from '../../../src/store/redis.js';
import { createTestContext, type TestContext } from '../../support/app.js';

/**
 * Redis that accepts connections and never answers (a hung or partitioned server): every
 * command waits forever, which is what a probe meets while Redis is unreachable.
 */
describe('health probes while Redis does not answer', () => {
  let t: TestContext;
  let blackHole: net.Server;
  const sockets: net.Socket[] = [];
  let silent: Redis;
  let app: FastifyInstance;

  beforeAll(async () => {
    t = await createTestContext({}, 'health-probe');
    t.ctx.lifecycle.markReady();
    blackHole = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => blackHole.listen(0, '127.0.0.1', r));
    const { port } = blackHole.address() as net.AddressInfo;
    silent = createRedis({ url: `redis://127.0.0.1:${port}`, prefix: 'x:' });
    app = Fastify();
    await app.register(healthRoutes, {
      ctx: { ...t.ctx, redis: silent },
      setupComplete: async () => (await silent.exists('admin')) === 1,
      metrics: {
        scripts: async () => ({ total: 0, approved: 0, pending: 0, rejected: 0 }),
        executions: async () => ({ total: 0, success: 0, failed: 0, avg_duration_ms: 0 }),
        secrets: async () => ({ total: 0, configured: 0 }),
        threads: () => 1,
      },
      engineStatus: () => 'unavailable',
      probeTimeoutMs: 300,
    });
  });
  afterAll(async () => {
    await app.close();
    silent.disconnect();
    for (const s of sockets) s.destroy();
    await new Promise((r) => blackHole.close(r));
    await t.close();
  });

  // Without the probe timeout these requests never end (the test times out).
  it('/health answers 503 store_unavailable', async () => {
    const res = await app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'unhealthy', reason: 'store_unavailable' });
  });

  it('/ready answers 503 with script_store false', async () => {
    const res = await app.inject({ method: 'GET', url: '/ready' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ ready: false, checks: { script_store: false } });
  });
});
