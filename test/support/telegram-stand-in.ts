import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUntil } from './wait.js';

/**
 * A Telegram Bot API stand-in on loopback: the methods Steward's grammY bot calls (getMe,
 * deleteWebhook, getUpdates with long polling, sendMessage, editMessageText, sendChatAction,
 * answerCallbackQuery), the errors it must survive (429 with `retry_after`, 400, 403), and
 * Telegram's own rule that one bot has one poller (a second concurrent getUpdates gets 409).
 */
export interface SentMessage {
  chat_id: string;
  message_id: number;
  /** The text as first sent. */
  text: string;
  /** Every later text, in order. */
  edits: string[];
  /** The inline buttons it shows now (an edit without them removes them). */
  buttons: Array<{ text: string; callback_data: string }>;
  /** Sent with force_reply (the client opens a reply to it). */
  forceReply: boolean;
}

export interface ApiCall {
  method: string;
  body: Record<string, unknown>;
  at: number;
}

export interface InjectedFailure {
  code: number;
  description?: string;
  retry_after?: number;
}

export interface TelegramStandIn {
  /** For `chat.telegram.api_root`. */
  readonly apiRoot: string;
  readonly token: string;
  readonly calls: ApiCall[];
  readonly messages: SentMessage[];
  /**
   * Telegram allows one poller per bot: a getUpdates arriving while another waits ends the
   * waiting one with 409. `conflicts` counts those whose client was still there to read it.
   */
  readonly polling: { conflicts: number; requests: number };
  /** A user writes to the bot in their private chat (chat id = user id), maybe as a reply. */
  userWrites(user: { id: number; first_name: string }, text: string, replyTo?: number): void;
  /**
   * A user writes in a group (a negative chat id), with the entities Telegram marks: a mention of
   * `@steward_test_bot`, a leading command; `replyTo` answers a message of the bot's.
   */
  userWritesInGroup(
    groupId: number,
    user: { id: number; first_name: string },
    text: string,
    replyTo?: number,
  ): void;
  /** The update with this id again, as Telegram sends one it did not see acknowledged. */
  redeliver(updateId: number): void;
  /** The id of the newest update sent. */
  readonly lastUpdateId: number;
  /** A user taps a button of a message in a chat; resolves with the bot's answer text. */
  userTaps(
    user: { id: number; first_name: string },
    message: SentMessage,
    data: string,
  ): Promise<string>;
  /** The next call(s) of `method` fail with this error. */
  failNext(method: string, failure: InjectedFailure, times?: number): void;
  /** The next call of `method` is recorded but not answered until the returned function runs. */
  holdNext(method: string): { reached: Promise<void>; release(): void };
  /** The webhook set by setWebhook (then updates are posted there instead of polled). */
  readonly webhook: { url: string; secret: string; answers: number[] } | null;
  /** The current text of each message sent to a chat, in order. */
  chatTexts(chatId: string | number): string[];
  waitFor<T>(check: () => T | undefined | null | false, ms?: number): Promise<T>;
  close(): Promise<void>;
}

interface Update {
  update_id: number;
  message?: Record<string, unknown>;
  callback_query?: Record<string, unknown>;
}

const BOT_NAME = 'steward_test_bot';

export async function startTelegramStandIn(
  token = '7000000001:AAstand-in-token-Zx9',
): Promise<TelegramStandIn> {
  const calls: ApiCall[] = [];
  const messages: SentMessage[] = [];
  const updates: Update[] = [];
  const failures = new Map<string, InjectedFailure[]>();
  const holds = new Map<string, { reached: () => void; released: Promise<void> }>();
  const pollWaiters = new Set<() => void>();
  const polling = { conflicts: 0, requests: 0 };
  let activePoll: { res: ServerResponse; terminate: () => void } | null = null;
  let nextUpdate = 1;
  let nextMessage = 100;
  let nextCallback = 1;
  let webhook: { url: string; secret: string; answers: number[] } | null = null;
  /** Polled from the queue, or posted to the webhook as Telegram does once one is set. */
  const deliver = (update: Update) => {
    if (!webhook) {
      updates.push(update);
      for (const wake of [...pollWaiters]) wake();
      return;
    }
    const hook = webhook;
    void fetch(hook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-telegram-bot-api-secret-token': hook.secret,
      },
      body: JSON.stringify(update),
    }).then(
      (res) => hook.answers.push(res.status),
      () => hook.answers.push(0),
    );
  };
  const callbackAnswers = new Map<string, (text: string) => void>();
  const sentUpdates = new Map<number, Update>();
  const send = (update: Update) => {
    sentUpdates.set(update.update_id, update);
    deliver(update);
  };
  const botUser = { id: 7000000001, is_bot: true, first_name: 'Steward', username: BOT_NAME };
  const entitiesOf = (text: string) => {
    const entities: Array<{ type: string; offset: number; length: number }> = [];
    const command = /^\/\w+(@\w+)?/.exec(text);
    if (command) entities.push({ type: 'bot_command', offset: 0, length: command[0].length });
    for (const m of text.matchAll(/@\w+/g)) {
      if (command && m.index < command[0].length) continue;
      entities.push({ type: 'mention', offset: m.index, length: m[0].length });
    }
    return entities;
  };

  const reply = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const ok = (res: ServerResponse, result: unknown) => reply(res, 200, { ok: true, result });
  const fail = (res: ServerResponse, f: InjectedFailure) =>
    reply(res, f.code, {
      ok: false,
      error_code: f.code,
      description: f.description ?? `Error ${f.code}`,
      ...(f.retry_after !== undefined ? { parameters: { retry_after: f.retry_after } } : {}),
    });

  const readBody = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };

  async function getUpdates(res: ServerResponse, body: Record<string, unknown>) {
    polling.requests++;
    const previous = activePoll;
    if (previous) {
      // A client that gave up (grammY's stop aborts its poll) is gone within moments; one still
      // reading after that is a second poller.
      setTimeout(() => {
        if (!previous.res.destroyed && !previous.res.writableEnded) {
          polling.conflicts++;
          previous.terminate();
        }
      }, 100);
    }
    const offset = Number(body.offset ?? 0);
    const pending = () => updates.filter((u) => u.update_id >= offset);
    let terminated = false;
    if (pending().length === 0) {
      const waitMs = Math.min(Number(body.timeout ?? 0), 50) * 1000;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          pollWaiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, waitMs);
        pollWaiters.add(wake);
        res.once('close', wake);
        activePoll = {
          res,
          terminate: () => {
            terminated = true;
            wake();
          },
        };
      });
      if (activePoll?.res === res) activePoll = null;
    }
    if (terminated) {
      return fail(res, {
        code: 409,
        description:
          'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
      });
    }
    // Telegram forgets what an offset confirms.
    updates.splice(0, updates.length, ...updates.filter((u) => u.update_id >= offset));
    if (!res.writableEnded && !res.destroyed) ok(res, pending());
  }

  const server = createServer((req, res) => {
    void (async () => {
      const match = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
      const body = await readBody(req);
      if (!match) return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
      const [, gotToken, method = ''] = match;
      calls.push({ method, body, at: Date.now() });
      if (gotToken !== token) return fail(res, { code: 401, description: 'Unauthorized' });
      const queued = failures.get(method);
      const failure = queued?.shift();
      if (failure) return fail(res, failure);
      const hold = holds.get(method);
      if (hold) {
        holds.delete(method);
        hold.reached();
        await hold.released;
      }
      switch (method) {
        case 'getMe':
          return ok(res, botUser);
        case 'deleteWebhook':
          webhook = null;
          return ok(res, true);
        case 'setWebhook':
          webhook = { url: String(body.url), secret: String(body.secret_token ?? ''), answers: [] };
          return ok(res, true);
        case 'getUpdates':
          return getUpdates(res, body);
        case 'sendMessage': {
          const markup = body.reply_markup as
            | {
                inline_keyboard?: Array<Array<{ text: string; callback_data: string }>>;
                force_reply?: boolean;
              }
            | undefined;
          const message: SentMessage = {
            chat_id: String(body.chat_id),
            message_id: nextMessage++,
            text: String(body.text),
            edits: [],
            buttons: markup?.inline_keyboard?.flat() ?? [],
            forceReply: markup?.force_reply === true,
          };
          messages.push(message);
          return ok(res, {
            message_id: message.message_id,
            date: Math.floor(Date.now() / 1000),
            chat: { id: Number(body.chat_id), type: 'private' },
            text: message.text,
          });
        }
        case 'editMessageText': {
          const message = messages.find(
            (m) => m.chat_id === String(body.chat_id) && m.message_id === Number(body.message_id),
          );
          if (!message)
            return fail(res, { code: 400, description: 'Bad Request: message to edit not found' });
          const current = message.edits.at(-1) ?? message.text;
          if (current === body.text) {
            return fail(res, { code: 400, description: 'Bad Request: message is not modified' });
          }
          message.edits.push(String(body.text));
          const markup = body.reply_markup as
            { inline_keyboard?: Array<Array<{ text: string; callback_data: string }>> } | undefined;
          message.buttons = markup?.inline_keyboard?.flat() ?? [];
          return ok(res, {
            message_id: message.message_id,
            chat: { id: Number(body.chat_id) },
            text: body.text,
          });
        }
        case 'answerCallbackQuery':
          callbackAnswers.get(String(body.callback_query_id))?.(String(body.text ?? ''));
          return ok(res, true);
        case 'sendChatAction':
          return ok(res, true);
        default:
          return fail(res, { code: 404, description: `Not Found: method ${method}` });
      }
    })().catch((err: unknown) => {
      if (!res.headersSent)
        reply(res, 500, { ok: false, error_code: 500, description: String(err) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    apiRoot: `http://127.0.0.1:${port}`,
    token,
    calls,
    messages,
    polling,
    get webhook() {
      return webhook;
    },
    get lastUpdateId() {
      return nextUpdate - 1;
    },
    redeliver(updateId) {
      const update = sentUpdates.get(updateId);
      if (!update) throw new Error(`no update ${updateId} was sent`);
      deliver(update);
    },
    userWritesInGroup(groupId, user, text, replyTo) {
      const chat = { id: groupId, type: 'supergroup', title: `group ${groupId}` };
      send({
        update_id: nextUpdate++,
        message: {
          message_id: nextMessage++,
          date: Math.floor(Date.now() / 1000),
          chat,
          from: { id: user.id, is_bot: false, first_name: user.first_name },
          text,
          entities: entitiesOf(text),
          ...(replyTo !== undefined
            ? { reply_to_message: { message_id: replyTo, date: 0, chat, from: botUser } }
            : {}),
        },
      });
    },
    userWrites(user, text, replyTo) {
      send({
        update_id: nextUpdate++,
        message: {
          message_id: nextMessage++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: user.id, type: 'private', first_name: user.first_name },
          from: { id: user.id, is_bot: false, first_name: user.first_name },
          text,
          ...(replyTo !== undefined
            ? {
                reply_to_message: {
                  message_id: replyTo,
                  date: 0,
                  chat: { id: user.id, type: 'private' },
                },
              }
            : {}),
        },
      });
    },
    userTaps(user, message, data) {
      const id = String(nextCallback++);
      const answered = new Promise<string>((resolve) => callbackAnswers.set(id, resolve));
      send({
        update_id: nextUpdate++,
        callback_query: {
          id,
          from: { id: user.id, is_bot: false, first_name: user.first_name },
          chat_instance: 'ci',
          data,
          message: {
            message_id: message.message_id,
            date: Math.floor(Date.now() / 1000),
            chat: { id: Number(message.chat_id), type: 'private' },
            text: message.edits.at(-1) ?? message.text,
          },
        },
      });
      return answered;
    },
    failNext(method, failure, times = 1) {
      const queued = failures.get(method) ?? [];
      for (let i = 0; i < times; i++) queued.push(failure);
      failures.set(method, queued);
    },
    holdNext(method) {
      let release!: () => void;
      let reached!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const reachedP = new Promise<void>((r) => (reached = r));
      holds.set(method, { reached, released });
      return { reached: reachedP, release };
    },
    chatTexts(chatId) {
      return messages
        .filter((m) => m.chat_id === String(chatId))
        .map((m) => m.edits.at(-1) ?? m.text);
    },
    waitFor: (check, ms = 20_000) => waitUntil(check, ms, 'the Telegram stand-in'),
    async close() {
      for (const wake of [...pollWaiters]) wake();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
