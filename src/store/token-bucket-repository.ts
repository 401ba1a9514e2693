import { keys } from './keys.js';
import { callLua } from './lua-commands.js';
import type { Redis } from './redis.js';

/** Token buckets in Redis, shared by every process of the deployment (`token-bucket-take`). */
export interface TokenBucketRepository {
  /** Takes one token of `client`'s bucket in `scope`; false when the bucket is empty. */
  take(scope: string, client: string, perSecond: number, capacity: number): Promise<boolean>;
}

export function createTokenBucketRepository(redis: Redis): TokenBucketRepository {
  return {
    async take(scope, client, perSecond, capacity) {
      const key = keys.tokenBucket(scope, client);
      return (await callLua(redis, 'tokenBucketTake', key, perSecond, capacity)) === 1;
    },
  };
}
