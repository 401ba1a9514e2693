import { keys } from './keys.js';
import { callLua } from './lua-commands.js';
import type { Redis } from './redis.js';

/**
 * Login sessions, one hash per session id (`sid`): the user, the id (`jti`) of the current refresh
 * token, and the id of the one it replaced with the end of that token's grace period. The hash
 * expires with the refresh lifetime, renewed on every rotation.
 */
export interface SessionRepository {
  create(sid: string, username: string, jti: string): Promise<void>;
  /**
   * Redeems refresh token `jti` of session `sid`:
   * - the current token: rotates to `freshJti`, the presented one stays usable for the grace;
   * - the previous token within its grace (parallel tabs): no rotation, re-issue the current id;
   * - anything else: reuse of a rotated-out token, so the whole session is revoked.
   */
  redeem(sid: string, username: string, jti: string, freshJti: string): Promise<RedeemOutcome>;
  /** Deletes the session; true when it existed. */
  revoke(sid: string): Promise<boolean>;
  /** The user of a live session, or null once it was logged out, revoked or expired. */
  owner(sid: string): Promise<string | null>;
}

export type RedeemOutcome =
  | { kind: 'rotated'; jti: string }
  | { kind: 'grace'; jti: string }
  | { kind: 'reused' }
  | { kind: 'unknown' };

export interface SessionRepositoryOptions {
  /** Lifetime of a session without refresh: the refresh token lifetime. */
  ttlMs: number;
  /** How long a rotated-out refresh token keeps working. */
  graceMs: number;
}

export function createSessionRepository(
  redis: Redis,
  options: SessionRepositoryOptions,
): SessionRepository {
  return {
    async create(sid, username, jti) {
      await redis
        .multi()
        .hset(keys.authSession(sid), {
          username,
          current: jti,
          created_at: new Date().toISOString(),
        })
        .pexpire(keys.authSession(sid), options.ttlMs)
        .exec();
    },
    async redeem(sid, username, jti, freshJti) {
      // lua/session-redeem-1.lua: on Redis's clock, so every API process agrees on the grace.
      const [kind, id] = (await callLua(
        redis,
        'sessionRedeem',
        keys.authSession(sid),
        jti,
        username,
        freshJti,
        options.graceMs,
        options.ttlMs,
      )) as [string, string];
      if (kind === 'rotated' || kind === 'grace') return { kind, jti: id };
      if (kind === 'reused') return { kind };
      return { kind: 'unknown' };
    },
    revoke: async (sid) => (await redis.del(keys.authSession(sid))) === 1,
    owner: (sid) => redis.hget(keys.authSession(sid), 'username'),
  };
}
