import { z } from 'zod';
import type { ChatOutbox } from '../../chat/chat-outbox.js';
import { ChatSendError } from '../../errors/chat-errors.js';
import { ToolError } from '../../errors/tool-error.js';
import { defineTool, type ToolDefinition } from '../tool-types.js';

/** A message the AI sends at once; longer ones are split at the platform's limit. */
export const MAX_CHAT_SEND_CHARS = 32 * 1024;

/**
 * `chat_send` (SPEC "Chat"), listed only when a chat provider is configured. It writes only to
 * chats the bot may reach (allowed or paired users, configured channels); the text is redacted,
 * split at the platform's limit and counted against the provider's send budget.
 */
export function chatTools(outbox: Pick<ChatOutbox, 'configured' | 'send'>): ToolDefinition[] {
  const providers = outbox.configured();
  const [first, ...rest] = providers;
  if (!first) return [];
  return [
    defineTool({
      name: 'chat_send',
      description:
        'Send a message to a chat: an allowed or paired user (Telegram: their numeric chat id) or a configured channel. Long messages are split.',
      inputSchema: z.object({
        provider: z.enum([first, ...rest]).describe(`The chat provider: ${providers.join(', ')}`),
        channel_id: z.string().min(1).max(256).describe('The chat or channel id'),
        message: z.string().min(1).max(MAX_CHAT_SEND_CHARS).describe('The text to send'),
      }),
      handler: async (args) => {
        try {
          const { parts } = await outbox.send(args.provider, args.channel_id, args.message);
          return `Sent to ${args.provider} chat ${args.channel_id}${parts > 1 ? ` in ${parts} messages` : ''}.`;
        } catch (err) {
          if (err instanceof ChatSendError) {
            const maybe = err.details.sent === 'unknown' ? ' (it may have arrived anyway)' : '';
            throw new ToolError(`Message not sent: ${err.message}${maybe}`);
          }
          throw err;
        }
      },
    }),
  ];
}
