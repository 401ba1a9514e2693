import { keys } from './keys.js';
import { callLua } from './lua-commands.js';
import type { Redis } from './redis.js';

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
 * Script review requests in the administrator's chat: one open request per script, each bound
 * to the hash it showed, closed once; and the replies that carry a rejection's reason.
 */
export interface ChatApprovalRepository {
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

export function createChatApprovalRepository(redis: Redis): ChatApprovalRepository {
  return {
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
