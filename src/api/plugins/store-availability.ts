import fp from 'fastify-plugin';
import { ServiceUnavailableError } from '../../errors/request-errors.js';
import { whenReady } from '../../store/redis.js';

/** The answer of every /api request while Redis is unreachable. */
export const storeUnavailableMessage = 'the data store (Redis) is not reachable; try again shortly';

/**
 * While Redis is down, ioredis holds each command until its reconnect attempts run out, so a
 * request took 10–15 s and ended in a 500. A request now waits for the connection at most
 * `waitMs` (a Redis restart fits in it) and is otherwise answered 503 at once.
 */
export const storeAvailabilityPlugin = fp<{ waitMs?: number }>(
  async (app, { waitMs = 2000 }) => {
    app.addHook('onRequest', async () => {
      if (!(await whenReady(app.redis, waitMs)))
        throw new ServiceUnavailableError(storeUnavailableMessage);
    });
  },
  { name: 'store-availability', dependencies: ['context'] },
);
