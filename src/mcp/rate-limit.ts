import type { Redis } from '../store/redis.js';
import { createTokenBucketRepository } from '../store/token-bucket-repository.js';

export interface ToolRateLimiter {
  /** The error text for a refused request. */
  readonly message: string;
  /** True when one more request of `key` is allowed now. */
  allow(key: string): Promise<boolean>;
}

/**
 * "10 requests per second sustained, burst 20": a token bucket per connection that holds `burst`
 * tokens and refills `per_second` of them a second. (Two fixed windows, as before, let a steady
 * client through at 15 a second.) Stdio counts in memory (one process is one connection); HTTP
 * counts in Redis so one token is limited across every API replica.
 */
export function createToolRateLimiter(
  limits: { per_second: number; burst: number },
  redis?: Redis,
): ToolRateLimiter {
  const rate = limits.per_second;
  const capacity = Math.max(limits.burst, rate);
  const message = `Rate limit exceeded: at most ${limits.per_second} requests per second (burst ${limits.burst})`;
  if (redis) {
    const buckets = createTokenBucketRepository(redis);
    return { message, allow: (key) => buckets.take('mcp', key, rate, capacity) };
  }
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    message,
    async allow(key) {
      const now = Date.now();
      const bucket = buckets.get(key) ?? { tokens: capacity, at: now };
      bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) * rate) / 1000);
      bucket.at = now;
      buckets.set(key, bucket);
      if (bucket.tokens < 1) return false;
      bucket.tokens -= 1;
      return true;
    },
  };
}
