import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
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
