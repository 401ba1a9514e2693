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

/** An identity the administrator approved (or that paired), with the chat it wrote from. */
export interface StoredIdentity {
  provider: string;
  user_id: string;
  chat_id: string;
  name: string;
  approved_at: string;
}

export type DeliveryPartState = 'claimed' | 'sending' | 'sent';

export type ApprovalState =
  'open' | 'awaiting_reason' | 'approved' | 'rejected' | 'expired' | 'superseded';

/** An approval request in the administrator's chat, bound to the hash it showed. */
export interface StoredApproval {
  id: string;
  script: string;
  hash: string;
  provider: string;
  chat_id: string;
  message_id: string;
  /** The text of the request message, to edit it with the outcome. */
  text: string;
  /** The one user id whose taps decide. */
  approver_id: string;
  created_at: string;
  expires_at: number;
  state: ApprovalState;
  reason_prompt_id?: string;
  /**
   * Every line of the text under review reached the chat (the buttons went under its last
   * part). Unset on requests too long to show, and on those stored before it existed: neither
   * can approve.
   */
  approvable?: boolean;
}

/**
 * The chat gateway's state shared by every process: the leader lease, pairing requests,
 * approved identities, per-chat sessions and the claims that make each delivery happen once.
 */
export interface ChatRepository {
  /** Takes or renews the leader lease; true while `owner` holds it. */
  holdLease(owner: string, ttlMs: number): Promise<boolean>;
  releaseLease(owner: string): Promise<void>;
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
  approveIdentity(identity: StoredIdentity): Promise<void>;
  /** True for the first call per (provider, user) within `windowMs`. */
  claimStrangerAnswer(provider: string, userId: string, windowMs: number): Promise<boolean>;
  /** True for the first call per (provider, update) within `keepMs`: an update is handled once. */
  claimUpdate(provider: string, updateId: string, keepMs: number): Promise<boolean>;
  identity(provider: string, userId: string): Promise<StoredIdentity | null>;
  identities(): Promise<StoredIdentity[]>;
  sessionOf(provider: string, chatId: string): Promise<string | null>;
  setSessionOf(provider: string, chatId: string, sessionId: string): Promise<void>;
  /** Claims one part of a delivery before it is sent (see lua/chat-delivery-claim-1.lua). */
  claimPart(deliveryId: string, part: number, keepMs: number): Promise<DeliveryPartState>;
  markPartSent(deliveryId: string, part: number): Promise<void>;
  /** The provider refused the part outright: it was not sent and may be tried again. */
  releasePart(deliveryId: string, part: number): Promise<void>;
  /** True for the first caller per (script, version): that one sends the request. */
  claimAnnouncement(script: string, commit: string, keepMs: number): Promise<boolean>;
  /** Stores a new open request and makes it the script's open one; returns the one it replaced. */
  openApproval(request: StoredApproval, keepMs: number): Promise<string | null>;
  approval(id: string): Promise<StoredApproval | null>;
  openApprovalOf(script: string): Promise<string | null>;
  openApprovals(): Promise<StoredApproval[]>;
  /**
   * Closes an open request once (the state it had), or null when someone else closed it. With
   * `now`, a request whose `expires_at` is not after it is left alone (null): a decision never
   * lands on an expired request, whenever the sweep comes.
   */
  closeApproval(
    request: Pick<StoredApproval, 'id' | 'script'>,
    state: ApprovalState,
    now?: number,
  ): Promise<StoredApproval | null>;
  /** The id of the request's message, known once it was sent. */
  setApprovalMessage(id: string, messageId: string): Promise<void>;
  /** Records the final state of a request this process closed (a decision that did not hold). */
  markApproval(request: StoredApproval, state: ApprovalState): Promise<void>;
  /** Waits for a rejection reason answering `promptId`. */
  awaitReason(request: StoredApproval, promptId: string): Promise<StoredApproval | null>;
  approvalAnswering(provider: string, chatId: string, promptId: string): Promise<string | null>;
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

export function createChatRepository(redis: Redis): ChatRepository {
  const field = (provider: string, id: string) => `${provider}:${id}`;
  return {
    async holdLease(owner, ttlMs) {
      return (await callLua(redis, 'chatLease', keys.chatLease(), owner, ttlMs)) === 1;
    },
    async releaseLease(owner) {
      await callLua(redis, 'chatLeaseRelease', keys.chatLease(), owner);
    },
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
    async claimUpdate(provider, updateId, keepMs) {
      const key = keys.chatUpdateSeen(provider, updateId);
      return (await redis.set(key, '1', 'PX', keepMs, 'NX')) === 'OK';
    },
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
    sessionOf: (provider, chatId) => redis.hget(keys.chatSessions(), field(provider, chatId)),
    async setSessionOf(provider, chatId, sessionId) {
      await redis.hset(keys.chatSessions(), field(provider, chatId), sessionId);
    },
    async claimPart(deliveryId, part, keepMs) {
      return (await callLua(
        redis,
        'chatDeliveryClaim',
        keys.chatDelivery(deliveryId),
        part,
        keepMs,
      )) as DeliveryPartState;
    },
    async markPartSent(deliveryId, part) {
      await redis.hset(keys.chatDelivery(deliveryId), String(part), 'sent');
    },
    async releasePart(deliveryId, part) {
      await redis.hdel(keys.chatDelivery(deliveryId), String(part));
    },
    async claimAnnouncement(script, commit, keepMs) {
      return (
        (await redis.set(keys.chatApprovalAnnounced(script, commit), '1', 'PX', keepMs, 'NX')) ===
        'OK'
      );
    },
    async openApproval(request, keepMs) {
      const [, [, previous]] = (await redis
        .multi()
        .set(keys.chatApproval(request.id), JSON.stringify(request), 'PX', keepMs)
        .hget(keys.chatApprovalsOpen(), request.script)
        .hset(keys.chatApprovalsOpen(), request.script, request.id)
        .exec()) as [unknown, [unknown, string | null], unknown];
      return previous && previous !== request.id ? previous : null;
    },
    async approval(id) {
      const raw = await redis.get(keys.chatApproval(id));
      return raw ? (JSON.parse(raw) as StoredApproval) : null;
    },
    openApprovalOf: (script) => redis.hget(keys.chatApprovalsOpen(), script),
    async openApprovals() {
      const ids = Object.values(await redis.hgetall(keys.chatApprovalsOpen()));
      if (ids.length === 0) return [];
      const raws = await redis.mget(ids.map((id) => keys.chatApproval(id)));
      return raws
        .filter((r): r is string => r !== null)
        .map((r) => JSON.parse(r) as StoredApproval);
    },
    async closeApproval(request, state, now) {
      const raw = (await callLua(
        redis,
        'chatApprovalClose',
        keys.chatApproval(request.id),
        keys.chatApprovalsOpen(),
        state,
        request.script,
        now ?? '',
      )) as string | null;
      return raw ? (JSON.parse(raw) as StoredApproval) : null;
    },
    async setApprovalMessage(id, messageId) {
      await callLua(redis, 'chatApprovalMessage', keys.chatApproval(id), messageId);
    },
    async markApproval(request, state) {
      await redis.set(
        keys.chatApproval(request.id),
        JSON.stringify({ ...request, state }),
        'KEEPTTL',
      );
    },
    async awaitReason(request, promptId) {
      const raw = (await callLua(
        redis,
        'chatApprovalAwait',
        keys.chatApproval(request.id),
        promptId,
      )) as string | null;
      if (!raw) return null;
      await redis.hset(
        keys.chatApprovalReasons(),
        `${request.provider}:${request.chat_id}:${promptId}`,
        request.id,
      );
      return JSON.parse(raw) as StoredApproval;
    },
    approvalAnswering: (provider, chatId, promptId) =>
      redis.hget(keys.chatApprovalReasons(), `${provider}:${chatId}:${promptId}`),
  };
}
