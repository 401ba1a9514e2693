import fp from 'fastify-plugin';
import { toHttp } from '../../errors/to-http.js';
import { ServiceUnavailableError } from '../../errors/request-errors.js';
import { waitForReplicas } from '../../store/redis.js';

const changes = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * With `redis.wait_replicas` > 0, a successful change is answered only once that many replicas
 * hold it (WAIT on the store connection, which made the request's writes): a failover can then
 * promote a replica without losing anything the API acknowledged. When they do not confirm in
 * `redis.wait_timeout`, the answer is 503 and says the change may or may not be kept.
 */
export const replicatedWritesPlugin = fp<{ replicas: number; timeoutMs: number }>(
  async (app, { replicas, timeoutMs }) => {
    if (replicas <= 0) return;
    app.addHook('onSend', async (request, reply, payload) => {
      if (!changes.has(request.method) || reply.statusCode >= 400) return payload;
      const confirmed = await waitForReplicas(app.redis, replicas, timeoutMs).catch(() => 0);
      if (confirmed >= replicas) return payload;
      request.log.warn({ confirmed, replicas }, 'change not confirmed by enough replicas');
      const answer = toHttp(
        new ServiceUnavailableError(
          `the change reached the primary but ${confirmed} of ${replicas} replica(s) confirmed it within ${timeoutMs} ms; it may or may not be kept — check before repeating it`,
        ),
      );
      reply.code(503).type('application/json');
      return JSON.stringify(answer?.body);
    });
  },
  { name: 'replicated-writes', dependencies: ['context'] },
);
