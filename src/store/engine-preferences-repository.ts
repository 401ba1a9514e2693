import { keys } from './keys.js';
import { callLua } from './lua-commands.js';
import type { Redis } from './redis.js';

/**
 * What the engine services remember across processes: the active chat session (where
 * chat-provider messages go) and the default model of new sessions, stored as the engine module
 * serialises it (it validates what it reads back).
 */
export interface EnginePreferencesRepository {
  activeSession(): Promise<string | null>;
  setActiveSession(id: string): Promise<void>;
  /** Clears the pointer only if it still names `id` (another replica may have moved it). */
  clearActiveSession(id: string): Promise<void>;
  defaultModel(): Promise<string | null>;
  setDefaultModel(value: string): Promise<void>;
}

export function createEnginePreferencesRepository(redis: Redis): EnginePreferencesRepository {
  return {
    activeSession: () => redis.get(keys.activeSession()),
    async setActiveSession(id) {
      await redis.set(keys.activeSession(), id);
    },
    async clearActiveSession(id) {
      await callLua(redis, 'activeSessionClear', keys.activeSession(), id);
    },
    defaultModel: () => redis.get(keys.defaultModel()),
    async setDefaultModel(value) {
      await redis.set(keys.defaultModel(), value);
    },
  };
}
