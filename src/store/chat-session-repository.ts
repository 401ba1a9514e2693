import { keys } from './keys.js';
import type { Redis } from './redis.js';

/** The engine session each chat talks to (`chat.session_scope: per_chat`). */
export interface ChatSessionRepository {
  sessionOf(provider: string, chatId: string): Promise<string | null>;
  setSessionOf(provider: string, chatId: string, sessionId: string): Promise<void>;
}

export function createChatSessionRepository(redis: Redis): ChatSessionRepository {
  const field = (provider: string, chatId: string) => `${provider}:${chatId}`;
  return {
    sessionOf: (provider, chatId) => redis.hget(keys.chatSessions(), field(provider, chatId)),
    async setSessionOf(provider, chatId, sessionId) {
      await redis.hset(keys.chatSessions(), field(provider, chatId), sessionId);
    },
  };
}
