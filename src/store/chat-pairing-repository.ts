import { keys } from './keys.js';
import { callLua } from './lua-commands.js';
import type { Redis } from './redis.js';

/** A pairing request as stored: who asked, from which chat, until when it may be approved. */
export interface StoredPairing {
  code: string;
  identity: string;
  provider: string;
  user_id: string;
  chat_id: string;
  name: string;
  created_at: string;
  expires_at: number;
}

/** Pairing requests of strangers, and how often a stranger is answered. */
export interface ChatPairingRepository {
  /**
   * Stores `pairing` unless its identity already has a pending one (returned instead, with
   * `created: false`). With `maxPending` of its provider waiting, the oldest of them is dropped
   * (`evicted`, its code) to make room.
   */
  requestPairing(
    pairing: StoredPairing,
    maxPending: number,
  ): Promise<{ code: string; created: boolean; evicted?: string }>;
  /** Pending requests that have not expired, oldest first. */
  pendingPairings(now: number): Promise<StoredPairing[]>;
  /** Removes a pending request and returns it (null if unknown or expired). */
  takePairing(code: string, now: number): Promise<StoredPairing | null>;
  /** True for the first call per (provider, user) within `windowMs`. */
  claimStrangerAnswer(provider: string, userId: string, windowMs: number): Promise<boolean>;
}

export function createChatPairingRepository(redis: Redis): ChatPairingRepository {
  return {
    async requestPairing(pairing, maxPending) {
      const reply = (await callLua(
        redis,
        'chatPairingCreate',
        keys.chatPairings(),
        Date.now(),
        pairing.identity,
        pairing.code,
        JSON.stringify(pairing),
        maxPending,
        pairing.provider,
      )) as [string, number, string];
      const [code, created, evicted] = reply;
      return { code, created: created === 1, ...(evicted ? { evicted } : {}) };
    },
    async pendingPairings(now) {
      const all = Object.values(await redis.hgetall(keys.chatPairings()));
      return all
        .map((raw) => JSON.parse(raw) as StoredPairing)
        .filter((p) => p.expires_at > now)
        .sort((a, b) => a.created_at.localeCompare(b.created_at));
    },
    async takePairing(code, now) {
      const raw = (await callLua(redis, 'chatPairingTake', keys.chatPairings(), code, now)) as
        string | null;
      return raw ? (JSON.parse(raw) as StoredPairing) : null;
    },
    async claimStrangerAnswer(provider, userId, windowMs) {
      const key = keys.chatStrangerAnswered(provider, userId);
      return (await redis.set(key, '1', 'PX', windowMs, 'NX')) === 'OK';
    },
  };
}
