import { keys } from '../store/keys.js';
import type { Redis } from '../store/redis.js';

/**
 * Login sessions, one hash per session id (`sid`): the user, the id (`jti`) of the current refresh
 * token, and the id of the one it replaced with the end of that token's grace period. The hash
 * expires with the refresh lifetime, renewed on every rotation.
 */
export interface SessionStore {
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
}

export type RedeemOutcome =
  | { kind: 'rotated'; jti: string }
  | { kind: 'grace'; jti: string }
  | { kind: 'reused' }
  | { kind: 'unknown' };

// Redis's clock, not the caller's: several API processes must agree on when a grace ends.
const redeemScript = `
local s = redis.call('HMGET', KEYS[1], 'current', 'previous', 'previous_until', 'username')
if not s[1] or s[4] ~= ARGV[2] then return {'unknown', ''} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if ARGV[1] == s[1] then
  redis.call('HSET', KEYS[1], 'current', ARGV[3], 'previous', ARGV[1], 'previous_until', tostring(now + tonumber(ARGV[4])))
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return {'rotated', ARGV[3]}
end
if s[2] and ARGV[1] == s[2] and now < tonumber(s[3]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return {'grace', s[1]}
end
redis.call('DEL', KEYS[1])
return {'reused', ''}
`;

export interface SessionStoreOptions {
  /** Lifetime of a session without refresh: the refresh token lifetime. */
  ttlMs: number;
  /** How long a rotated-out refresh token keeps working. */
  graceMs: number;
}

export function createSessionStore(redis: Redis, options: SessionStoreOptions): SessionStore {
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
      const [kind, id] = (await redis.eval(
        redeemScript,
        1,
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
  };
}
