import { App, LogLevel, SocketModeReceiver, webApi } from '@slack/bolt';
import { ChatSendError } from '../errors/chat-errors.js';
import type { Logger } from '../log/logger.js';
import type {
  ChatButton,
  ChatProvider,
  InboundHandlers,
  ProviderStatus,
  SendOptions,
} from './provider.js';

export interface SlackProviderOptions {
  botToken: string;
  /** The app-level token (`xapp-…`) Socket Mode connects with. */
  appToken: string;
  /** The Web API root with its trailing slash (default https://slack.com/api/). */
  apiUrl: string;
  /** Channels (besides DMs) where a mention of the bot is answered. */
  channels: readonly string[];
  redact: (text: string) => string;
  log: Logger;
}

/** Slack's section blocks take 3,000 characters; plain messages are cut there too. */
export const SLACK_MAX_CHARS = 3000;
const RATE_LIMIT_TRIES = 3;

/** Slack reads `&`, `<` and `>` as markup even with formatting off: they are escaped. */
export const slackEscape = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/**
 * Slack on @slack/bolt in Socket Mode (no public URL): DMs, and mentions in configured channels.
 * Messages go as plain text (formatting off, markup escaped). The Web API client does not retry
 * by itself: a request that may have reached Slack is never sent twice; a 429 is waited out
 * here (Slack did not take the message) before the call fails.
 */
export function createSlackProvider(options: SlackProviderOptions): ChatProvider {
  const { redact, log } = options;
  const clientOptions = {
    slackApiUrl: options.apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  };
  const receiver = new SocketModeReceiver({
    appToken: options.appToken,
    logLevel: LogLevel.ERROR,
    installerOptions: { clientOptions },
  });
  const app = new App({
    token: options.botToken,
    receiver,
    clientOptions,
    logLevel: LogLevel.ERROR,
    tokenVerificationEnabled: false,
  });
  let status: ProviderStatus = { state: 'stopped' };
  let handlers: InboundHandlers | null = null;
  let botUserId = '';

  app.event('message', async ({ event }) => {
    const m = event as {
      subtype?: string;
      bot_id?: string;
      channel: string;
      channel_type?: string;
      user?: string;
      text?: string;
      thread_ts?: string;
      ts: string;
    };
    if (m.subtype || m.bot_id || !m.user || m.text === undefined || m.channel_type !== 'im') return;
    handlers?.message({
      provider: 'slack',
      chatId: m.channel,
      userId: m.user,
      userName: m.user,
      text: m.text,
      ...(m.thread_ts && m.thread_ts !== m.ts ? { replyTo: m.thread_ts } : {}),
    });
  });
  app.event('app_mention', async ({ event }) => {
    if (!options.channels.includes(event.channel) || !event.user) return;
    const text = event.text.replaceAll(`<@${botUserId}>`, '').trim();
    handlers?.message({
      provider: 'slack',
      chatId: event.channel,
      userId: event.user,
      userName: event.user,
      text,
      ...(event.thread_ts && event.thread_ts !== event.ts ? { replyTo: event.thread_ts } : {}),
    });
  });
  app.action(/^steward_/, async ({ ack, body, action, client }) => {
    await ack();
    const b = body as {
      user: { id: string };
      channel?: { id: string };
      container?: { message_ts?: string; channel_id?: string };
    };
    const channel = b.channel?.id ?? b.container?.channel_id;
    const ts = b.container?.message_ts;
    const value = (action as { value?: string }).value;
    if (!channel || !ts || !value) return;
    handlers?.action({
      provider: 'slack',
      chatId: channel,
      userId: b.user.id,
      messageId: ts,
      data: value,
      answer: async (text) => {
        await client.chat
          .postEphemeral({ channel, user: b.user.id, text: slackEscape(text) })
          .catch(() => {});
      },
    });
  });
  app.error(async (err) => {
    log.warn({ err: redact(err.message) }, 'slack event failed');
  });

  const failure = (method: string, err: unknown): ChatSendError => {
    const e = err as {
      code?: string;
      data?: { error?: string };
      statusCode?: number;
      message?: string;
    };
    if (e.code === webApi.ErrorCode.PlatformError) {
      // Slack answered: the message was not taken. Its own errors are permanent but a few.
      const error = e.data?.error ?? 'error';
      const transient = ['ratelimited', 'internal_error', 'fatal_error', 'service_unavailable'];
      return new ChatSendError(redact(`slack ${method}: ${error}`), {
        sent: false,
        permanent: !transient.includes(error),
      });
    }
    if (e.code === webApi.ErrorCode.RateLimitedError) {
      return new ChatSendError(`slack ${method}: rate limited`, { sent: false, permanent: false });
    }
    if (e.code === webApi.ErrorCode.HTTPError) {
      return new ChatSendError(redact(`slack ${method}: HTTP ${e.statusCode}`), {
        sent: false,
        permanent: false,
      });
    }
    return new ChatSendError(redact(`slack ${method}: ${e.message ?? String(err)}`), {
      sent: 'unknown',
      permanent: false,
    });
  };

  async function call<T>(method: string, fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        const limited = err as { code?: string; retryAfter?: number };
        if (limited.code === webApi.ErrorCode.RateLimitedError && attempt < RATE_LIMIT_TRIES) {
          await new Promise((r) => setTimeout(r, (limited.retryAfter ?? 1) * 1000));
          continue;
        }
        throw failure(method, err);
      }
    }
  }

  const blocks = (text: string, buttons: ChatButton[] | undefined) =>
    buttons
      ? [
          { type: 'section', text: { type: 'plain_text', text: text.slice(0, SLACK_MAX_CHARS) } },
          {
            type: 'actions',
            elements: buttons.map((b, i) => ({
              type: 'button',
              action_id: `steward_${i}`,
              text: { type: 'plain_text', text: b.label },
              value: b.data,
            })),
          },
        ]
      : [];

  return {
    name: 'slack',
    maxMessageChars: SLACK_MAX_CHARS,
    async start(inbound) {
      handlers = inbound;
      status = { state: 'starting' };
      try {
        const me = await app.client.auth.test();
        botUserId = me.user_id ?? '';
        await app.start();
        status = { state: 'running' };
      } catch (err) {
        const error = redact(err instanceof Error ? err.message : String(err));
        status = { state: 'error', error };
        throw failure('apps.connections.open', err);
      }
    },
    async stop() {
      handlers = null;
      await app.stop().catch(() => {});
      status = { state: 'stopped' };
    },
    async send(chatId, text, sendOptions?: SendOptions) {
      const sent = await call('chat.postMessage', () =>
        app.client.chat.postMessage({
          channel: chatId,
          text: slackEscape(text),
          mrkdwn: false,
          unfurl_links: false,
          ...(sendOptions?.buttons ? { blocks: blocks(text, sendOptions.buttons) } : {}),
        }),
      );
      if (!sent.ts)
        throw new ChatSendError('slack chat.postMessage: no ts in the answer', {
          sent: 'unknown',
          permanent: true,
        });
      return sent.ts;
    },
    async edit(chatId, messageId, text, sendOptions?: SendOptions) {
      await call('chat.update', () =>
        app.client.chat.update({
          channel: chatId,
          ts: messageId,
          text: slackEscape(text),
          blocks: blocks(text, sendOptions?.buttons),
        }),
      );
    },
    // Slack has no typing indicator for bots outside the legacy RTM API.
    async typing() {},
    status: () => status,
  };
}
