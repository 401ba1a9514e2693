import type { Logger } from '../log/logger.js';
import type { Redis } from '../store/redis.js';
import { keys } from '../store/keys.js';
import type { EngineClient } from './client.js';
import { toMessageView, toSessionView, type MessageView, type SessionView } from './mapping.js';
import { readDefaultModel } from './models-service.js';

export interface SessionsServiceOptions {
  client: EngineClient;
  redis: Redis;
  log: Logger;
}

export interface SessionsService {
  /** Every top-level session, newest first, each with `active`. */
  list(): Promise<SessionView[]>;
  /** Creates a session with the current default model and makes it the active one. */
  create(): Promise<SessionView>;
  get(id: string): Promise<SessionView>;
  remove(id: string): Promise<{ ok: true }>;
  messages(id: string, limit: number): Promise<MessageView[]>;
  /** The session chat-provider messages go to, if any. */
  activeSessionId(): Promise<string | null>;
}

export const DEFAULT_MESSAGE_LIMIT = 50;

export function createSessionsService(options: SessionsServiceOptions): SessionsService {
  const { client, redis, log } = options;

  return {
    async list() {
      const [sessions, active] = await Promise.all([
        client.listSessions(),
        redis.get(keys.activeSession()),
      ]);
      return sessions.map((s) => ({ ...toSessionView(s), active: s.id === active }));
    },
    async create() {
      const model = await readDefaultModel(redis);
      // The model is pinned on the session, so a later change of the default leaves it alone.
      const session = await client.createSession(model ? { model } : {});
      await redis.set(keys.activeSession(), session.id);
      log.info({ sessionID: session.id, model }, 'session created');
      return toSessionView(session);
    },
    async get(id) {
      return toSessionView(await client.getSession(id));
    },
    async remove(id) {
      await client.deleteSession(id);
      // Only clears the pointer if it still names this session (another replica may have moved it).
      await redis.eval(
        "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
        1,
        keys.activeSession(),
        id,
      );
      return { ok: true };
    },
    async messages(id, limit) {
      return (await client.messages(id, limit)).map(toMessageView);
    },
    activeSessionId: () => redis.get(keys.activeSession()),
  };
}
