import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthRoutes } from '../../../src/api/routes/health.js';
import { createRedis, type Redis } from '../../../src/store/redis.js';
import { createTestContext, type TestContext } from '../../support/app.js';
import { startBlackHole } from '../../support/black-hole.js';

describe('health probes while Redis does not answer', () => {
  let t: TestContext;
  let blackHole: Awaited<ReturnType<typeof startBlackHole>>;
  let silent: Redis;
  let app: FastifyInstance;

  beforeAll(async () => {
    t = await createTestContext({}, 'health-probe');
    t.ctx.lifecycle.markReady();
    blackHole = await startBlackHole();
    silent = createRedis({ url: blackHole.url, prefix: 'x:' });
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
    await blackHole.close();
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
