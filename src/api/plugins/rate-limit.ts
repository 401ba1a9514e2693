import type {
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  preHandlerHookHandler,
} from 'fastify';
import type { RateLimit } from '../../auth/rate-limits.js';
import { RateLimitedError } from '../../errors/request-errors.js';

/** Which client a request counts against. */
export type ClientKey = (request: FastifyRequest) => string;

/** Per client IP; `request.ip` honours X-Forwarded-For only when `server.trust_proxy` is set. */
export const byIp: ClientKey = (request) => `ip:${request.ip}`;

/** The authenticated user when the guard set one, else the client IP. */
export const byUserOrIp: ClientKey = (request) =>
  request.user?.username ? `user:${request.user.username}` : byIp(request);

/**
 * An onRequest hook counting the request against `limit` and answering 429 `rate_limited` beyond
 * it. Every limited response (allowed or refused) carries the X-RateLimit-* headers.
 */
export function rateLimitHook(limit: RateLimit, keyOf: ClientKey): onRequestHookHandler {
  return async function rateLimit(request: FastifyRequest, reply: FastifyReply) {
    await countRequest(limit, keyOf, request, reply);
  };
}

/** Counts on their way, by request: the error each one ends with (429, Redis down), or null. */
const counting = new WeakMap<FastifyRequest, Promise<Error | null>>();

/**
 * The same count as `rateLimitHook`, started at onRequest and awaited at preHandler: its round
 * trip to Redis runs while the body is read, parsed and validated, instead of before. Nothing a
 * route does happens before the verdict, and a request that fails before its handler answers
 * with the count's error first (`countError`, in the error handler): 429 beyond the limit,
 * whatever else was wrong with it.
 */
export function overlappedRateLimitHooks(
  limit: RateLimit,
  keyOf: ClientKey,
): { onRequest: onRequestHookHandler; preHandler: preHandlerHookHandler } {
  return {
    onRequest(request, reply, done) {
      counting.set(
        request,
        countRequest(limit, keyOf, request, reply).then(
          () => null,
          (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
        ),
      );
      done();
    },
    async preHandler(request) {
      const error = await countError(request);
      if (error) throw error;
    },
  };
}

/** The error a request's overlapped count ended with, once it is known; null when none. */
export function countError(request: FastifyRequest): Promise<Error | null> {
  const pending = counting.get(request);
  if (pending === undefined) return Promise.resolve(null);
  counting.delete(request);
  return pending;
}

/**
 * Counts one request; throws 429 beyond the limit. Also for requests no route or guard lets
 * through (401, 404): without it, token-less requests were never limited.
 */
export async function countRequest(
  limit: RateLimit,
  keyOf: ClientKey,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const decision = await limit.consume(keyOf(request));
  reply.header('x-ratelimit-limit', String(decision.limit));
  reply.header('x-ratelimit-remaining', String(decision.remaining));
  reply.header('x-ratelimit-reset', String(decision.resetAt));
  if (!decision.allowed) {
    reply.header('retry-after', String(decision.retryAfter));
    throw new RateLimitedError(`too many requests; try again in ${decision.retryAfter} s`);
  }
}
