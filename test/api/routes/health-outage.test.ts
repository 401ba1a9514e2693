import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsPlugin } from '../../../src/api/plugins/errors.js';
import { healthRoutes, type HealthOptions } from '../../../src/api/routes/health.js';
import { createRedis, type Redis } from '../../../src/store/redis.js';
import { createTestContext, type TestContext } from '../../support/app.js';
import { ownRedis, type OwnRedis } from '../../support/own-redis.js';

/** Probes and /metrics while the store dies under them: a Redis of the test's own, killed. */
describe('health probes and /metrics during a store outage', () => {
  let t: TestContext;
  let redis: OwnRedis;
  let store: Redis;
  const apps: FastifyInstance[] = [];

  async function healthApp(): Promise<FastifyInstance> {
    const app = Fastify();
    await app.register(errorsPlugin);
    const counted = async () => ({ total: Number((await store.get('scripts')) ?? 0) });
    const options: HealthOptions = {
      ctx: { ...t.ctx, redis: store },
      setupComplete: async () => (await store.exists('admin')) === 1,
      metrics: {
        scripts: async () => ({ ...(await counted()), approved: 0, pending: 0, rejected: 0 }),
        executions: async () => ({ total: 0, success: 0, failed: 0, avg_duration_ms: 0 }),
        secrets: async () => ({ total: 0, configured: 0 }),
        threads: () => 1,
      },
      engineStatus: () => 'unavailable',
      metricsCacheMs: 0,
    };
    await app.register(healthRoutes, options);
    apps.push(app);
    return app;
  }

  beforeAll(async () => {
    t = await createTestContext({}, 'health-outage');
    t.ctx.lifecycle.setCheck('mcp_server', true);
    t.ctx.lifecycle.markReady();
    redis = await ownRedis();
    await redis.start();
    store = createRedis({ url: redis.url, prefix: 'ho:' });
    store.on('error', () => {});
    await store.set('admin', '1');
    await store.set('scripts', '7');
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    store.disconnect();
    await redis.cleanup();
    await t.close();
  });

  it('answers /metrics within 1 s with the last counts and their age, /ready naming script_store with setup still done', async () => {
    const app = await healthApp();
    const cold = await healthApp();
    expect((await app.inject('/metrics')).json().scripts.total).toBe(7);
    const ready = await app.inject('/ready');
    expect(ready.statusCode).toBe(200);

    await redis.kill();
    await new Promise((r) => setTimeout(r, 1100));

    let started = Date.now();
    const metrics = await app.inject('/metrics');
    expect(Date.now() - started).toBeLessThan(1500);
    expect(metrics.statusCode).toBe(200);
    expect(metrics.json().scripts.total).toBe(7);
    expect(Number(metrics.headers.age)).toBeGreaterThanOrEqual(1);

    started = Date.now();
    const none = await cold.inject('/metrics');
    expect(Date.now() - started).toBeLessThan(1500);
    expect(none.statusCode).toBe(503);
    expect(none.json().error).toBe('service_unavailable');

    started = Date.now();
    const during = await app.inject('/ready');
    expect(Date.now() - started).toBeLessThan(2500);
    expect(during.statusCode).toBe(503);
    expect(during.json()).toEqual({
      ready: false,
      checks: { admin_setup: true, script_store: false, mcp_server: true },
      reason: 'script_store',
    });

    await redis.start();
    const deadline = Date.now() + 15_000;
    // The restarted Redis kept nothing (no persistence): only the store check is asked back.
    while (!(await app.inject('/ready')).json().checks.script_store) {
      if (Date.now() > deadline) throw new Error('not ready again after Redis came back');
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 40_000);
});
