import { keys } from './keys.js';
import type { Redis } from './redis.js';

/** An identity the administrator approved (or that paired), with the chat it wrote from. */
export interface StoredIdentity {
  provider: string;
  user_id: string;
  chat_id: string;
  name: string;
  approved_at: string;
}

/** The people allowed to talk to the assistant beyond the config's allow-lists. */
export interface ChatIdentityRepository {
  approveIdentity(identity: StoredIdentity): Promise<void>;
  identity(provider: string, userId: string): Promise<StoredIdentity | null>;
  identities(): Promise<StoredIdentity[]>;
}

export function createChatIdentityRepository(redis: Redis): ChatIdentityRepository {
  const field = (provider: string, userId: string) => `${provider}:${userId}`;
  return {
    async approveIdentity(identity) {
      await redis.hset(
        keys.chatIdentities(),
        field(identity.provider, identity.user_id),
        JSON.stringify(identity),
      );
    },
    async identity(provider, userId) {
      const raw = await redis.hget(keys.chatIdentities(), field(provider, userId));
      return raw ? (JSON.parse(raw) as StoredIdentity) : null;
    },
    async identities() {
      return Object.values(await redis.hgetall(keys.chatIdentities())).map(
        (raw) => JSON.parse(raw) as StoredIdentity,
      );
    },
  };
}
