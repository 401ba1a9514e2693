import { keys } from './keys.js';
import type { Redis } from './redis.js';

/** How a chat provider's updates are handled once: each id is claimed before it is handled. */
export interface ChatUpdateClaims {
  /** True for the first call per (provider, update) within `keepMs`: an update is handled once. */
  claimUpdate(provider: string, updateId: string, keepMs: number): Promise<boolean>;
}

export function createChatUpdateClaims(redis: Redis): ChatUpdateClaims {
  return {
    async claimUpdate(provider, updateId, keepMs) {
      const key = keys.chatUpdateSeen(provider, updateId);
      return (await redis.set(key, '1', 'PX', keepMs, 'NX')) === 'OK';
    },
  };
}

/** Webhook updates waiting for the leader; a backlog past this is cut (oldest first). */
const MAX_QUEUED_UPDATES = 10_000;

/** Hands webhook updates from the API processes to the gateway's leader. */
export interface ChatUpdateQueue {
  push(provider: string, update: string): Promise<void>;
}

export function createChatUpdateQueue(redis: Redis): ChatUpdateQueue {
  return {
    async push(provider, update) {
      await redis
        .multi()
        .rpush(keys.chatUpdates(provider), update)
        .ltrim(keys.chatUpdates(provider), -MAX_QUEUED_UPDATES, -1)
        .exec();
    },
  };
}

/**
 * The leader's side: a blocking read on a connection of its own (BLPOP holds the connection
 * while it waits). `close` ends a wait in progress.
 */
export interface ChatUpdateReader {
  take(provider: string, waitSeconds: number): Promise<string | null>;
  close(): void;
}

export function createChatUpdateReader(redis: Redis): ChatUpdateReader {
  return {
    async take(provider, waitSeconds) {
      const popped = await redis.blpop(keys.chatUpdates(provider), waitSeconds);
      return popped ? popped[1] : null;
    },
    close: () => redis.disconnect(),
  };
}
