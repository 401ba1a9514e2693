import fp from 'fastify-plugin';
import type { Context } from '../../runtime/context.js';
import type { QueueClient } from '../../queue/client.js';
import type { Redis } from '../../store/redis.js';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: Context;
    redis: Redis;
    queues: QueueClient;
  }
}

/** Named decorators for the infrastructure every route may need. */
export const contextPlugin = fp<{ ctx: Context }>(
  async (app, { ctx }) => {
    app.decorate('ctx', ctx);
    app.decorate('redis', ctx.redis);
    app.decorate('queues', ctx.queues);
  },
  { name: 'context' },
);
