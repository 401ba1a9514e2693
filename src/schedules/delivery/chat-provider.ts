import type { ChatOutbox } from '../../chat/chat-outbox.js';
import type { ChatProviderName } from '../../contracts/provider-names.js';
import { ChatSendError } from '../../errors/chat-errors.js';
import { DeliveryError } from '../../errors/delivery-error.js';
import type { DeliveryMessage, DeliveryProvider } from './provider.js';

/** The text a chat receives for a run: the schedule's name, then its output (or error). */
export function chatDeliveryText(message: DeliveryMessage): string {
  const head =
    message.status === 'success' ? message.scheduleName : `${message.scheduleName} failed`;
  return message.output ? `${head}\n${message.output}` : head;
}

/**
 * Schedule output to a chat provider through the outbox, exactly once per run and target: the
 * outbox claims every part, so a retried job skips what was sent and stops as `unknown` where a
 * send's outcome was lost. The target is the administrator's choice (only the API sets it), so
 * the allow-lists that bound `chat_send` do not apply.
 */
export function createChatDeliveryProvider(
  outbox: Pick<ChatOutbox, 'send'>,
  provider: ChatProviderName,
): DeliveryProvider {
  return {
    async deliver(channelId, message) {
      try {
        await outbox.send(provider, channelId, chatDeliveryText(message), {
          deliveryId: message.deliveryId,
          chosenByAdmin: true,
        });
      } catch (err) {
        if (!(err instanceof ChatSendError)) throw err;
        throw new DeliveryError(err.message, err.details.permanent, err.details.sent === 'unknown');
      }
    },
  };
}
