import { ChatSendError } from '../errors/chat-errors.js';
import type { ChatDeliveryRepository } from '../store/chat-delivery-repository.js';
import type { ChatAccess } from './chat-access.js';
import type { ChatProvider } from './provider.js';
import type { ChatProviderName } from '../contracts/provider-names.js';
import { splitMessage } from './split-message.js';

export interface ChatOutboxDeps {
  /** The provider for sending (built on first use with its token), or null when not configured. */
  provider: (name: ChatProviderName) => Promise<ChatProvider | null>;
  configured: readonly ChatProviderName[];
  access: Pick<ChatAccess, 'reachable'>;
  claims: ChatDeliveryRepository;
  redact: (text: string) => string;
  /** Takes one send from the provider's budget (shared by every process); false when spent. */
  takeSend?: (provider: ChatProviderName) => Promise<boolean>;
}

export interface SendOptions {
  /**
   * Makes the send happen once per id (a schedule run × target): each part is claimed before it
   * goes out, a part already sent is skipped on a retry, and a part whose send began but never
   * ended (a crash) stops the delivery as `unknown` instead of being sent twice.
   */
  deliveryId?: string;
  /**
   * The administrator chose this chat (a schedule's `output_target`, DESIGN "schedule targets"):
   * it need not be reachable by the allow-lists and `channels`, which bound who may talk to the
   * bot and where the AI's `chat_send` may write.
   */
  chosenByAdmin?: boolean;
}

export interface ChatOutbox {
  configured(): readonly ChatProviderName[];
  /** Sends `text`, redacted and split at the platform's limit; resolves with the parts sent. */
  send(
    provider: ChatProviderName,
    chatId: string,
    text: string,
    options?: SendOptions,
  ): Promise<{ parts: number }>;
}

/** How long a delivery's claims are kept: longer than any retry of its job. */
const CLAIM_KEEP_MS = 7 * 24 * 3600 * 1000;

/**
 * Outbound chat messages that nobody asked for in that chat: `chat_send` (only to reachable
 * chats) and schedule output (to the target the administrator set).
 */
export function createChatOutbox(deps: ChatOutboxDeps): ChatOutbox {
  return {
    configured: () => deps.configured,
    async send(name, chatId, text, options = {}) {
      const provider = await deps.provider(name);
      if (!provider) {
        throw new ChatSendError(`chat provider ${name} is not configured`, {
          sent: false,
          permanent: true,
        });
      }
      if (!options.chosenByAdmin && !(await deps.access.reachable(name, chatId))) {
        throw new ChatSendError(
          `the bot may not write to ${name} chat ${chatId}: only allowed or paired users and configured channels`,
          { sent: false, permanent: true },
        );
      }
      const pieces = splitMessage(deps.redact(text), provider.maxMessageChars).filter(
        (piece) => piece.trim() !== '',
      );
      const id = options.deliveryId;
      for (const [part, piece] of pieces.entries()) {
        if (id) {
          const state = await deps.claims.claimPart(id, part, CLAIM_KEEP_MS);
          if (state === 'sent') continue;
          if (state === 'sending') {
            throw new ChatSendError(
              `part ${part + 1} of ${pieces.length} may or may not have been sent (its sender stopped); not sent again`,
              { sent: 'unknown', permanent: true },
            );
          }
        }
        if (deps.takeSend && !(await deps.takeSend(name))) {
          if (id) await deps.claims.releasePart(id, part);
          throw new ChatSendError(`${name}: too many messages; try again in a few seconds`, {
            sent: false,
            permanent: false,
          });
        }
        try {
          await provider.send(chatId, piece);
        } catch (err) {
          // A refusal leaves the part free for a retry; an unknown outcome keeps it claimed.
          const refused = err instanceof ChatSendError && err.details.sent === false;
          if (id && refused) await deps.claims.releasePart(id, part);
          throw err;
        }
        if (id) await deps.claims.markPartSent(id, part);
      }
      return { parts: pieces.length };
    },
  };
}
