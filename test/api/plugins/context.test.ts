import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { contextPlugin } from '../../../src/api/plugins/context.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../../support/redis.js';

const prefix = uniquePrefix('context-plugin');
const redis = storeRedis(prefix);
afterAll(async () => {
  redis.disconnect();
  await dropPrefix(prefix);
});

describe('context plugin', () => {
  it('decorates the app, and every scope below it, with the store connection', async () => {
    const app = Fastify();
    await app.register(contextPlugin, { ctx: { redis } });
    let seen: unknown;
    await app.register(async (scope) => {
      seen = scope.redis;
    });
    await app.ready();
    expect(app.redis).toBe(redis);
    expect(seen).toBe(redis);
    await app.close();
  });

  it('cannot be registered twice on one app', async () => {
    const app = Fastify();
    await app.register(contextPlugin, { ctx: { redis } });
    await expect(app.register(contextPlugin, { ctx: { redis } })).rejects.toThrow();
    await app.close();
  });
});
