import {
  BurstyRateLimiter,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { keys } from '../store/keys.js';
import type { Redis } from '../store/redis.js';

export interface ToolRateLimiter {
  /** The error text for a refused request. */
  readonly message: string;
  /** True when one more request of `key` is allowed now. */
  allow(key: string): Promise<boolean>;
}

/**
 * "10 requests per second sustained, burst 20": a 1 s bucket of `perSecond` backed by a 2 s
 * bucket holding the burst's excess. Stdio counts in memory (one process is one connection);
 * HTTP counts in Redis so one token is limited across every API replica.
 */
export function createToolRateLimiter(
  limits: { per_second: number; burst: number },
  redis?: Redis,
): ToolRateLimiter {
  const extra = Math.max(0, limits.burst - limits.per_second);
  const make = (points: number, duration: number, keyPrefix: string) =>
    redis
      ? new RateLimiterRedis({ storeClient: redis, points, duration, keyPrefix })
      : new RateLimiterMemory({ points, duration, keyPrefix });
  const limiter = new BurstyRateLimiter(
    make(limits.per_second, 1, keys.rateLimit('mcp')),
    make(Math.max(1, extra), 2, keys.rateLimit('mcp-burst')),
  );
  return {
    message: `Rate limit exceeded: at most ${limits.per_second} requests per second (burst ${limits.burst})`,
    async allow(key) {
      try {
        await limiter.consume(key);
        return true;
      } catch (err) {
        if (err instanceof RateLimiterRes) return false;
        throw err;
      }
    },
  };
}
