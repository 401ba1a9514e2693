import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  Client,
  DiscordAPIError,
  Events,
  GatewayIntentBits,
  HTTPError,
  MessageFlags,
  Partials,
  Routes,
} from 'discord.js';
import { ChatSendError } from '../errors/chat-errors.js';
import type { Logger } from '../log/logger.js';
import type {
  ChatButton,
  ChatProvider,
  InboundHandlers,
  ProviderStatus,
  SendOptions,
} from './provider.js';

export interface DiscordProviderOptions {
  token: string;
  /** The REST root without the version (default https://discord.com/api). */
  apiRoot: string;
  /** Guild channels where a mention of the bot is answered. */
  channels: readonly string[];
  /** Allowed user ids: a send to one of them goes to their DM channel. */
  users: readonly string[];
  redact: (text: string) => string;
  log: Logger;
}

/** Discord's message limit. */
export const DISCORD_MAX_CHARS = 2000;

/**
 * Discord on discord.js: the gateway with the message-content intent for DMs and mentions in
 * configured channels; sends, edits and typing through its REST client, which waits out 429s
 * itself (Discord did not take the message) and never retries anything else, so a message is
 * never sent twice. Mentions are disabled on everything the bot sends.
 */
export function createDiscordProvider(options: DiscordProviderOptions): ChatProvider {
  const { redact, log } = options;
  const client = new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.DirectMessages,
      GatewayIntentBits.MessageContent,
    ],
    // DM channels arrive uncached; without this partial their messages are dropped.
    partials: [Partials.Channel],
    rest: { api: options.apiRoot.replace(/\/+$/, ''), retries: 0 },
  });
  const rest = client.rest.setToken(options.token);
  let status: ProviderStatus = { state: 'stopped' };
  let handlers: InboundHandlers | null = null;
  const dmChannels = new Map<string, string>();

  client.on(Events.MessageCreate, (message) => {
    if (!handlers || message.author.bot) return;
    const direct = !message.guildId;
    const mentioned = client.user ? message.mentions.users.has(client.user.id) : false;
    if (!direct && !(mentioned && options.channels.includes(message.channelId))) return;
    const text = client.user
      ? message.content.replaceAll(`<@${client.user.id}>`, '').trim()
      : message.content;
    handlers.message({
      provider: 'discord',
      chatId: message.channelId,
      userId: message.author.id,
      userName: message.author.username,
      text,
      ...(message.reference?.messageId ? { replyTo: message.reference.messageId } : {}),
    });
  });
  client.on(Events.InteractionCreate, (interaction) => {
    if (!handlers || !interaction.isButton()) return;
    handlers.action({
      provider: 'discord',
      chatId: interaction.channelId,
      userId: interaction.user.id,
      messageId: interaction.message.id,
      data: interaction.customId,
      answer: async (text) => {
        await interaction
          .reply({ content: text.slice(0, DISCORD_MAX_CHARS), flags: MessageFlags.Ephemeral })
          .catch(() => {});
      },
    });
  });
  client.on(Events.Error, (err) => log.warn({ err: redact(err.message) }, 'discord gateway error'));

  const failure = (method: string, err: unknown): ChatSendError => {
    if (err instanceof DiscordAPIError) {
      return new ChatSendError(redact(`discord ${method}: ${err.message}`), {
        sent: false,
        permanent: err.status >= 400 && err.status < 500,
      });
    }
    if (err instanceof HTTPError) {
      return new ChatSendError(redact(`discord ${method}: HTTP ${err.status}`), {
        sent: err.status >= 500 ? 'unknown' : false,
        permanent: false,
      });
    }
    const code = (err as { code?: string }).code;
    const refused = code === 'ECONNREFUSED' || code === 'ENOTFOUND';
    return new ChatSendError(
      redact(`discord ${method}: ${(err as Error).message ?? String(err)}`),
      {
        sent: refused ? false : 'unknown',
        permanent: false,
      },
    );
  };

  const components = (buttons: ChatButton[] | undefined) =>
    buttons
      ? [
          new ActionRowBuilder<ButtonBuilder>()
            .addComponents(
              buttons.map((b) =>
                new ButtonBuilder()
                  .setCustomId(b.data)
                  .setLabel(b.label)
                  .setStyle(b.data.startsWith('rj:') ? ButtonStyle.Danger : ButtonStyle.Success),
              ),
            )
            .toJSON(),
        ]
      : [];

  /** A send to an allowed user goes to their DM channel, opened once. */
  async function channelOf(id: string): Promise<string> {
    if (!options.users.includes(id)) return id;
    const known = dmChannels.get(id);
    if (known) return known;
    const dm = (await rest.post(Routes.userChannels(), { body: { recipient_id: id } })) as {
      id: string;
    };
    dmChannels.set(id, dm.id);
    return dm.id;
  }

  return {
    name: 'discord',
    maxMessageChars: DISCORD_MAX_CHARS,
    async start(inbound) {
      handlers = inbound;
      status = { state: 'starting' };
      try {
        const ready = new Promise<void>((resolve) =>
          client.once(Events.ClientReady, () => resolve()),
        );
        await client.login(options.token);
        await ready;
        status = { state: 'running' };
      } catch (err) {
        status = { state: 'error', error: redact((err as Error).message) };
        throw failure('login', err);
      }
    },
    async stop() {
      handlers = null;
      await client.destroy().catch(() => {});
      status = { state: 'stopped' };
    },
    async send(chatId, text, sendOptions?: SendOptions) {
      try {
        const channel = await channelOf(chatId);
        const sent = (await rest.post(Routes.channelMessages(channel), {
          body: {
            content: text,
            allowed_mentions: { parse: [] },
            components: components(sendOptions?.buttons),
          },
        })) as { id: string };
        return sent.id;
      } catch (err) {
        throw failure('send', err);
      }
    },
    async edit(chatId, messageId, text, sendOptions?: SendOptions) {
      try {
        await rest.patch(Routes.channelMessage(await channelOf(chatId), messageId), {
          body: {
            content: text,
            allowed_mentions: { parse: [] },
            components: components(sendOptions?.buttons),
          },
        });
      } catch (err) {
        throw failure('edit', err);
      }
    },
    async typing(chatId) {
      try {
        await rest.post(Routes.channelTyping(await channelOf(chatId)));
      } catch (err) {
        throw failure('typing', err);
      }
    },
    status: () => status,
  };
}
