import { autoRetry } from '@grammyjs/auto-retry';
import { Bot, GrammyError, HttpError } from 'grammy';
import { ChatSendError } from '../errors/chat-errors.js';
import type { Logger } from '../log/logger.js';
import { addressedText } from './telegram-mention.js';
import { telegramWebhookSecret } from './telegram-webhook-secret.js';
import type { ChatProvider, InboundHandlers, ProviderStatus, SendOptions } from './provider.js';

export interface TelegramProviderOptions {
  token: string;
  /** The Bot API root (no trailing slash); tests point it at a stand-in on loopback. */
  apiRoot: string;
  /** Removes secrets (the token among them) from text that reaches a log or an error. */
  redact: (text: string) => string;
  log: Logger;
  /** Long-poll wait of getUpdates, in seconds (Telegram's own bound is 50). */
  pollSeconds?: number;
  /**
   * Group chats (`chat.telegram.groups`) where a message that addresses the bot is answered;
   * elsewhere only private chats are.
   */
  groups?: readonly string[];
  /**
   * Claims an update id for this bot, true the first time (shared by every process, kept 24 h):
   * an update delivered twice (a replayed webhook call, a poll after a failover) is handled once.
   */
  claimUpdate?: (updateId: number) => Promise<boolean>;
  /**
   * Webhook mode: Telegram posts updates to `url` (an API process, which queues them); this
   * provider registers the webhook and handles what `next` hands it.
   */
  webhook?: {
    url: string;
    /** The next queued update (JSON), or null after a wait with none. */
    next: () => Promise<string | null>;
    /** Ends a `next` in progress. */
    close: () => void;
  };
}

const allowedUpdates = ['message', 'callback_query'] as const;

/** Telegram's message limit (characters after entity parsing; Steward sends plain text). */
export const TELEGRAM_MAX_CHARS = 4096;

const refusedCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Telegram on grammY: long polling through `bot.start`, sends through `bot.api` with the
 * auto-retry plugin, which waits out a 429's `retry_after` (and retries 5xx: Telegram answered,
 * so nothing was sent) before a call fails.
 * Messages go as plain text, so a model's stray `*` or `<` never makes Telegram refuse one.
 */
export function createTelegramProvider(options: TelegramProviderOptions): ChatProvider {
  const { redact, log } = options;
  const bot = new Bot(options.token, { client: { apiRoot: options.apiRoot.replace(/\/+$/, '') } });
  // Network failures are not retried here: a request that may have reached Telegram is never
  // repeated blindly (the caller decides, from ChatSendError.sent).
  bot.api.config.use(
    autoRetry({ maxRetryAttempts: 3, maxDelaySeconds: 120, rethrowHttpErrors: true }),
  );
  let status: ProviderStatus = { state: 'stopped' };
  let receiver: InboundHandlers | null = null;
  const groups = new Set(options.groups ?? []);

  const claim = options.claimUpdate;
  if (claim) {
    // First, before any handler: an update seen before goes no further.
    bot.use(async (ctx, next) => {
      if (await claim(ctx.update.update_id)) await next();
    });
  }
  bot.on('message:text', (ctx) => {
    const from = ctx.from;
    if (!from || !receiver) return;
    let text: string | null = ctx.message.text;
    if (ctx.chat.type !== 'private') {
      // A group's messages reach the assistant only where configured, and only when meant for it.
      text = groups.has(String(ctx.chat.id)) ? addressedText(ctx.message, ctx.me) : null;
      if (text === null) return;
    }
    const replyTo = ctx.message.reply_to_message?.message_id;
    receiver.message({
      provider: 'telegram',
      chatId: String(ctx.chat.id),
      userId: String(from.id),
      userName: [from.first_name, from.last_name].filter(Boolean).join(' ') || from.username || '',
      text,
      ...(replyTo !== undefined ? { replyTo: String(replyTo) } : {}),
    });
  });
  bot.on('callback_query:data', (ctx) => {
    const message = ctx.callbackQuery.message;
    if (!receiver || !message) return ctx.answerCallbackQuery();
    receiver.action({
      provider: 'telegram',
      chatId: String(message.chat.id),
      userId: String(ctx.from.id),
      messageId: String(message.message_id),
      data: ctx.callbackQuery.data,
      answer: async (text) => {
        await ctx.answerCallbackQuery({ text: text.slice(0, 200) }).catch(() => {});
      },
    });
  });
  bot.catch((err) => log.warn({ err: redact(String(err.error)) }, 'telegram update failed'));

  /** A grammY failure as Steward's error, with the platform's words and no token. */
  const failure = (method: string, err: unknown): ChatSendError => {
    if (err instanceof GrammyError) {
      const retryable = err.error_code === 429 || err.error_code >= 500;
      return new ChatSendError(redact(`telegram ${method}: ${err.description}`), {
        sent: false,
        permanent: !retryable,
      });
    }
    if (err instanceof HttpError) {
      const cause = err.error as { code?: string } | undefined;
      const refused = refusedCodes.has(cause?.code ?? '');
      return new ChatSendError(redact(`telegram ${method}: ${err.message}`), {
        sent: refused ? false : 'unknown',
        permanent: false,
      });
    }
    return new ChatSendError(redact(`telegram ${method}: ${String(err)}`), {
      sent: 'unknown',
      permanent: false,
    });
  };

  return {
    name: 'telegram',
    maxMessageChars: TELEGRAM_MAX_CHARS,
    async start(handlers) {
      receiver = handlers;
      status = { state: 'starting' };
      const webhook = options.webhook;
      if (webhook) {
        try {
          await bot.init();
          await bot.api.setWebhook(webhook.url, {
            secret_token: telegramWebhookSecret(options.token),
            allowed_updates: [...allowedUpdates],
          });
        } catch (err) {
          status = { state: 'error', error: redact((err as Error).message) };
          throw failure('setWebhook', err);
        }
        status = { state: 'running' };
        void (async () => {
          while (receiver) {
            // A broken connection is retried after a pause, not in a tight loop.
            const raw = await webhook.next().catch(async () => {
              await new Promise((r) => setTimeout(r, 1000));
              return null;
            });
            if (!raw || !receiver) continue;
            await bot
              .handleUpdate(JSON.parse(raw) as Parameters<typeof bot.handleUpdate>[0])
              .catch((err: unknown) =>
                log.warn({ err: redact(String(err)) }, 'telegram update failed'),
              );
          }
        })();
        return;
      }
      return new Promise<void>((resolve, reject) => {
        let started = false;
        bot
          .start({
            allowed_updates: [...allowedUpdates],
            timeout: options.pollSeconds ?? 30,
            onStart: () => {
              started = true;
              status = { state: 'running' };
              resolve();
            },
          })
          .then(() => {
            if (status.state === 'running') status = { state: 'stopped' };
          })
          .catch((err: unknown) => {
            const error = redact(err instanceof Error ? err.message : String(err));
            status = { state: 'error', error };
            log.error({ error }, 'telegram polling stopped');
            if (!started) reject(failure('getUpdates', err));
          });
      });
    },
    async stop() {
      receiver = null;
      options.webhook?.close();
      if (bot.isRunning()) await bot.stop();
      status = { state: 'stopped' };
    },
    async send(chatId, text, options) {
      try {
        const sent = await bot.api.sendMessage(chatId, text, {
          link_preview_options: { is_disabled: true },
          ...markup(options),
        });
        return String(sent.message_id);
      } catch (err) {
        throw failure('sendMessage', err);
      }
    },
    async edit(chatId, messageId, text, options) {
      try {
        await bot.api.editMessageText(chatId, Number(messageId), text, {
          link_preview_options: { is_disabled: true },
          ...(options?.buttons ? { reply_markup: keyboard(options.buttons) } : {}),
        });
      } catch (err) {
        // An edit to the text it already has is not a failure worth reporting.
        if (err instanceof GrammyError && /message is not modified/i.test(err.description)) return;
        throw failure('editMessageText', err);
      }
    },
    async typing(chatId) {
      try {
        await bot.api.sendChatAction(chatId, 'typing');
      } catch (err) {
        throw failure('sendChatAction', err);
      }
    },
    status: () => status,
  };
}

const keyboard = (buttons: NonNullable<SendOptions['buttons']>) => ({
  inline_keyboard: [buttons.map((b) => ({ text: b.label, callback_data: b.data }))],
});

function markup(options: SendOptions | undefined) {
  if (options?.buttons) return { reply_markup: keyboard(options.buttons) };
  if (options?.forceReply) return { reply_markup: { force_reply: true as const } };
  return {};
}
