import type { Logger } from '../log/logger.js';
import type { EnginePreferencesRepository } from '../store/engine-preferences-repository.js';
import type { EngineClient } from './client.js';
import { toMessageView, toSessionView, type MessageView, type SessionView } from './mapping.js';
import { readDefaultModel } from './models-service.js';

export interface SessionsServiceOptions {
  client: EngineClient;
  preferences: EnginePreferencesRepository;
  log: Logger;
}

export interface SessionsService {
  /** Every top-level session, newest first, each with `active`. */
  list(): Promise<SessionView[]>;
  /**
   * Creates a session with the current default model and makes it the active one (unless
   * `activate` is false: a chat's own session under `per_chat` scope).
   */
  create(options?: { activate?: boolean; title?: string }): Promise<SessionView>;
  get(id: string): Promise<SessionView>;
  remove(id: string): Promise<{ ok: true }>;
  messages(id: string, limit: number): Promise<MessageView[]>;
  /** The session chat-provider messages go to, if any. */
  activeSessionId(): Promise<string | null>;
}

export const DEFAULT_MESSAGE_LIMIT = 50;

export function createSessionsService(options: SessionsServiceOptions): SessionsService {
  const { client, preferences, log } = options;

  return {
    async list() {
      const [sessions, active] = await Promise.all([
        client.listSessions(),
        preferences.activeSession(),
      ]);
      return sessions.map((s) => ({ ...toSessionView(s), active: s.id === active }));
    },
    async create(options = {}) {
      const model = await readDefaultModel(preferences);
      // The model is pinned on the session, so a later change of the default leaves it alone.
      const session = await client.createSession({
        ...(model ? { model } : {}),
        ...(options.title ? { title: options.title } : {}),
      });
      if (options.activate !== false) await preferences.setActiveSession(session.id);
      log.info({ sessionID: session.id, model }, 'session created');
      return toSessionView(session);
    },
    async get(id) {
      return toSessionView(await client.getSession(id));
    },
    async remove(id) {
      await client.deleteSession(id);
      // Only clears the pointer if it still names this session (another replica may have moved it).
      await preferences.clearActiveSession(id);
      return { ok: true };
    },
    async messages(id, limit) {
      return (await client.messages(id, limit)).map(toMessageView);
    },
    activeSessionId: () => preferences.activeSession(),
  };
}
