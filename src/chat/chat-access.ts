import { randomInt } from 'node:crypto';
import { NotFoundError } from '../errors/request-errors.js';
import type { ChatIdentityRepository, StoredIdentity } from '../store/chat-identity-repository.js';
import type { ChatPairingRepository, StoredPairing } from '../store/chat-pairing-repository.js';
import type { ChatProviderName } from '../contracts/provider-names.js';
import type { InboundMessage } from './provider.js';
import type { AuditLog } from '../runtime/audit-log.js';

/**
 * A pairing code has 8 characters and lives 1 h; up to 20 wait per provider, and a new request
 * beyond that drops the oldest one, so a handful of strangers cannot keep everyone else out.
 */
export const PAIRING_CODE_LENGTH = 8;
export const PAIRING_TTL_MS = 60 * 60 * 1000;
export const MAX_PENDING_PAIRINGS = 20;
/** A stranger is answered (with their code) at most this often. */
export const STRANGER_ANSWER_WINDOW_MS = 60 * 1000;
// No 0/O, 1/I/L: the code is read off a phone and typed into the admin UI.
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

export interface PairingView {
  code: string;
  provider: string;
  user_id: string;
  chat_id: string;
  name: string;
  created_at: string;
  expires_at: string;
}

export type IdentityView = StoredIdentity;

/**
 * Who may talk to the bot (deny by default) and where it may write: the configured allow-lists,
 * identities the administrator approved from a pairing request, and configured channels.
 */
export interface ChatAccess {
  allowed(provider: ChatProviderName, userId: string): Promise<boolean>;
  /**
   * A pairing code for an unknown sender (the same one while it is pending); with too many of
   * the provider's waiting, the oldest request makes room.
   */
  requestPairing(message: InboundMessage): Promise<{ code: string; created: boolean }>;
  /**
   * Whether to answer a stranger now: once a minute per sender, so a flood from strangers cannot
   * make the bot spend its platform rate limit on them.
   */
  mayAnswerStranger(provider: ChatProviderName, userId: string): Promise<boolean>;
  pairings(): Promise<PairingView[]>;
  identities(): Promise<IdentityView[]>;
  /** Approves a pending code (NotFoundError if unknown or expired). */
  approve(code: string): Promise<IdentityView>;
  deny(code: string): Promise<PairingView>;
  /** Whether the bot may send to `chatId` unasked (`chat_send`, schedule output). */
  reachable(provider: ChatProviderName, chatId: string): Promise<boolean>;
}

export interface ChatAccessDeps {
  pairings: ChatPairingRepository;
  identities: ChatIdentityRepository;
  /** Configured user ids per provider (their private chats are reachable too). */
  allow: Partial<Record<ChatProviderName, readonly string[]>>;
  /** Configured channels per provider, where the bot may post. */
  channels?: Partial<Record<ChatProviderName, readonly string[]>>;
  /** Pairing requests are recorded in the audit log (approvals and denials by the API). */
  trail?: Pick<AuditLog, 'record'>;
  now?: () => number;
}

export function newPairingCode(): string {
  let code = '';
  for (let i = 0; i < PAIRING_CODE_LENGTH; i++)
    code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

const view = (p: StoredPairing): PairingView => ({
  code: p.code,
  provider: p.provider,
  user_id: p.user_id,
  chat_id: p.chat_id,
  name: p.name,
  created_at: p.created_at,
  expires_at: new Date(p.expires_at).toISOString(),
});

export function createChatAccess(deps: ChatAccessDeps): ChatAccess {
  const { pairings: requests, identities: people } = deps;
  const now = deps.now ?? Date.now;
  const configured = (provider: ChatProviderName, userId: string) =>
    deps.allow[provider]?.includes(userId) ?? false;

  const take = async (code: string) => {
    const pairing = await requests.takePairing(code.toUpperCase(), now());
    if (!pairing) throw new NotFoundError(`no pending pairing request with code ${code}`);
    return pairing;
  };

  return {
    async allowed(provider, userId) {
      return configured(provider, userId) || (await people.identity(provider, userId)) !== null;
    },
    async requestPairing(message) {
      const at = now();
      const { code, created } = await requests.requestPairing(
        {
          code: newPairingCode(),
          identity: `${message.provider}:${message.userId}`,
          provider: message.provider,
          user_id: message.userId,
          chat_id: message.chatId,
          name: message.userName.slice(0, 200),
          created_at: new Date(at).toISOString(),
          expires_at: at + PAIRING_TTL_MS,
        },
        MAX_PENDING_PAIRINGS,
      );
      if (created) {
        await deps.trail?.record({
          actor: `${message.provider}:${message.userId}`,
          channel: 'chat',
          action: 'chat.pairing.request',
          target: code,
          details: { provider: message.provider, user_id: message.userId, name: message.userName },
        });
      }
      return { code, created };
    },
    mayAnswerStranger: (provider, userId) =>
      requests.claimStrangerAnswer(provider, userId, STRANGER_ANSWER_WINDOW_MS),
    async pairings() {
      return (await requests.pendingPairings(now())).map(view);
    },
    identities: () => people.identities(),
    async approve(code) {
      const pairing = await take(code);
      const identity: StoredIdentity = {
        provider: pairing.provider,
        user_id: pairing.user_id,
        chat_id: pairing.chat_id,
        name: pairing.name,
        approved_at: new Date(now()).toISOString(),
      };
      await people.approveIdentity(identity);
      return identity;
    },
    async deny(code) {
      return view(await take(code));
    },
    async reachable(provider, chatId) {
      if (configured(provider, chatId)) return true;
      if (deps.channels?.[provider]?.includes(chatId)) return true;
      return (await people.identities()).some(
        (i) => i.provider === provider && i.chat_id === chatId,
      );
    },
  };
}
