import type { Message, UserFromGetMe } from 'grammy/types';

/**
 * A group message's text when it addresses the bot, without the mention; null when it does not.
 * Addressed: a mention of the bot (`@name`, or a mention of its account by a user without a
 * name), a command sent to it (`/status@name`), or a reply to one of its messages (how a
 * Telegram user answers the bot, rejection reasons included). The same rule as mentions in
 * Slack and Discord channels: a group's chatter never reaches the assistant.
 */
export function addressedText(message: Message.TextMessage, me: UserFromGetMe): string | null {
  const handle = `@${me.username}`.toLowerCase();
  const text = message.text;
  let addressed = message.reply_to_message?.from?.id === me.id;
  // Mentions are cut from the end first, so earlier offsets stay right.
  const cuts: Array<[number, number]> = [];
  for (const entity of message.entities ?? []) {
    const part = text.slice(entity.offset, entity.offset + entity.length);
    if (entity.type === 'mention' && part.toLowerCase() === handle) {
      addressed = true;
      cuts.push([entity.offset, entity.offset + entity.length]);
    } else if (entity.type === 'text_mention' && entity.user.id === me.id) {
      addressed = true;
      cuts.push([entity.offset, entity.offset + entity.length]);
    } else if (entity.type === 'bot_command' && part.toLowerCase().endsWith(handle)) {
      addressed = true;
    }
  }
  if (!addressed) return null;
  let rest = text;
  for (const [from, to] of cuts.sort((a, b) => b[0] - a[0])) {
    rest = rest.slice(0, from) + rest.slice(to);
  }
  return rest.trim();
}
