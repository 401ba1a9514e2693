import { keys } from './keys.js';
import { callLua } from './lua-commands.js';
import type { Redis } from './redis.js';

/** The chat gateway's leader lease: one process cluster-wide receives from the chat providers. */
export interface ChatLeaseRepository {
  /** Takes or renews the lease; true while `owner` holds it. */
  holdLease(owner: string, ttlMs: number): Promise<boolean>;
  releaseLease(owner: string): Promise<void>;
}

export function createChatLeaseRepository(redis: Redis): ChatLeaseRepository {
  return {
    async holdLease(owner, ttlMs) {
      return (await callLua(redis, 'chatLease', keys.chatLease(), owner, ttlMs)) === 1;
    },
    async releaseLease(owner) {
      await callLua(redis, 'chatLeaseRelease', keys.chatLease(), owner);
    },
  };
}
