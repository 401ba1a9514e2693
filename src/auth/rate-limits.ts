import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { keys } from '../store/keys.js';
import type { Redis } from '../store/redis.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** When the current window ends, epoch seconds. */
  resetAt: number;
  /** Whole seconds until a refused client may try again. */
  retryAfter: number;
}

export interface RateLimit {
  readonly limit: number;
  /** Counts one request of `client` (e.g. `ip:1.2.3.4`, `user:admin`). */
  consume(client: string): Promise<RateDecision>;
}

/**
 * A fixed-window limit counted in Redis, so it holds across every API process. The store
 * connection already adds the deployment prefix (ioredis keyPrefix, which also covers the
 * limiter's Lua KEYS), so the limiter's own prefix is the relative `keys.rateLimit(scope)`.
 */
export function createRateLimit(
  redis: Redis,
  scope: string,
  perMinute: number,
  windowSeconds = 60,
): RateLimit {
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: keys.rateLimit(scope),
    points: perMinute,
    duration: windowSeconds,
  });
  const decide = (res: RateLimiterRes, allowed: boolean): RateDecision => {
    const ms = Math.max(0, res.msBeforeNext);
    return {
      allowed,
      limit: perMinute,
      remaining: Math.max(0, res.remainingPoints),
      resetAt: Math.ceil((Date.now() + ms) / 1000),
      retryAfter: Math.max(1, Math.ceil(ms / 1000)),
    };
  };
  return {
    limit: perMinute,
    async consume(client) {
      try {
        return decide(await limiter.consume(client), true);
      } catch (err) {
        // The limiter rejects with a RateLimiterRes when over the limit, with an Error otherwise.
        if (err instanceof RateLimiterRes) return decide(err, false);
        throw err;
      }
    },
  };
}
