import fp from 'fastify-plugin';
import type { Context } from '../../runtime/context.js';
import type { Redis } from '../../store/redis.js';

declare module 'fastify' {
  interface FastifyInstance {
    redis: Redis;
  }
}

/**
 * The store connection as `app.redis`, for plugins that guard every request (store
 * availability). Routes get their services as options instead, so nothing else is decorated.
 */
export const contextPlugin = fp<{ ctx: Pick<Context, 'redis'> }>(
  async (app, { ctx }) => {
    app.decorate('redis', ctx.redis);
  },
  { name: 'context' },
);
