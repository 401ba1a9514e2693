import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextPlugin } from '../../../src/api/plugins/context.js';
import { errorsPlugin } from '../../../src/api/plugins/errors.js';
import {
  storeAvailabilityPlugin,
  storeUnavailableMessage,
} from '../../../src/api/plugins/store-availability.js';
import { freePort } from '../../../src/store/embedded-redis.js';
import { createRedis, type Redis } from '../../../src/store/redis.js';
import { createTestContext, type TestContext } from '../../support/app.js';
import { startBlackHole } from '../../support/black-hole.js';

async function appOn(t: TestContext, redis: Redis, extra?: (app: FastifyInstance) => void) {
  const app = Fastify();
  await app.register(errorsPlugin);
  await app.register(contextPlugin, { ctx: { ...t.ctx, redis } });
  await app.register(
    async (api) => {
      await api.register(storeAvailabilityPlugin, { waitMs: 200 });
      api.get('/count', async () => ({ n: await redis.incr('store-availability:n') }));
    },
    { prefix: '/api' },
  );
  extra?.(app);
  return app;
}

describe('requests while Redis is unreachable', () => {
  let t: TestContext;
  let dead: Redis;
  let blackHole: Awaited<ReturnType<typeof startBlackHole>>;
  let silent: Redis;
  beforeAll(async () => {
    t = await createTestContext({}, 'store-avail');
    blackHole = await startBlackHole();
    silent = createRedis({ url: blackHole.url, prefix: 'x:' });
    dead = createRedis({ url: `redis://127.0.0.1:${await freePort()}`, prefix: 'x:' }, 'store', {
      maxRetriesPerRequest: 0,
    });
    dead.on('error', () => {});
  });
  afterAll(async () => {
    dead.disconnect();
    silent.disconnect();
    await blackHole.close();
    await t.close();
  });

  it('are answered 503 service_unavailable instead of waiting for Redis', async () => {
    const app = await appOn(t, silent);
    try {
      const res = await app.inject({ method: 'GET', url: '/api/count' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        error: 'service_unavailable',
        message: storeUnavailableMessage,
      });
    } finally {
      await app.close();
    }
  });

  it('a command that fails for want of Redis mid-request is a 503 too, not a 500', async () => {
    const app = await appOn(t, t.ctx.redis, (root) => {
      root.get('/direct', async () => ({ v: await dead.get('k') }));
    });
    try {
      const res = await app.inject({ method: 'GET', url: '/direct' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ error: 'service_unavailable' });
    } finally {
      await app.close();
    }
  });

  it('pass through while the connection is up', async () => {
    const app = await appOn(t, t.ctx.redis);
    try {
      const res = await app.inject({ method: 'GET', url: '/api/count' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ n: 1 });
    } finally {
      await app.close();
    }
  });
});
