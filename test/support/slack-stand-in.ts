import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { waitUntil } from './wait.js';

/**
 * A Slack stand-in on loopback: the Web API methods Steward's Bolt app calls (auth.test,
 * apps.connections.open, chat.postMessage, chat.update, chat.postEphemeral, with 429 and
 * Retry-After on demand) and Socket Mode: a WebSocket that says `hello`, sends event and
 * interactive envelopes and expects each acknowledged by its envelope id.
 */
export interface SlackMessage {
  channel: string;
  ts: string;
  text: string;
  edits: string[];
  /** Button values of the message's actions block now. */
  buttons: Array<{ text: string; value: string }>;
}

export interface SlackStandIn {
  /** For `chat.slack.api_url`. */
  readonly apiUrl: string;
  readonly botToken: string;
  readonly appToken: string;
  readonly calls: Array<{ method: string; body: Record<string, unknown>; at: number }>;
  readonly messages: SlackMessage[];
  readonly ephemeral: Array<{ channel: string; user: string; text: string }>;
  /** Envelope ids the app acknowledged. */
  readonly acks: string[];
  /** Socket Mode connections open now. */
  connections(): number;
  /** A user writes in their DM with the bot (`D` + user id), maybe in a thread. */
  userWrites(user: string, text: string, threadTs?: string): void;
  userTaps(user: string, message: SlackMessage, value: string): void;
  failNext(method: string, failure: { status: number; retryAfter?: number; error?: string }): void;
  texts(channel: string): string[];
  waitFor<T>(check: () => T | undefined | null | false, ms?: number): Promise<T>;
  close(): Promise<void>;
}

export const dmOf = (user: string) => `D${user.slice(1)}`;

export async function startSlackStandIn(): Promise<SlackStandIn> {
  const botToken = 'xoxb-stand-in-1234567890-abcdefghij';
  const appToken = 'xapp-1-stand-in-0987654321-zyxwvu';
  const calls: SlackStandIn['calls'] = [];
  const messages: SlackMessage[] = [];
  const ephemeral: SlackStandIn['ephemeral'] = [];
  const acks: string[] = [];
  const failures = new Map<
    string,
    Array<{ status: number; retryAfter?: number; error?: string }>
  >();
  const sockets = new Set<WebSocket>();
  let clock = 1_700_000_000;
  let seq = 1;
  const nextTs = () => `${clock++}.${String(seq++).padStart(6, '0')}`;

  const json = (
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const readBody = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    if (!raw) return {};
    if ((req.headers['content-type'] ?? '').includes('application/json'))
      return JSON.parse(raw) as Record<string, unknown>;
    const form = Object.fromEntries(new URLSearchParams(raw));
    // The Web API client sends objects (blocks) as JSON strings inside the form.
    for (const [k, v] of Object.entries(form)) {
      if (v.startsWith('[') || v.startsWith('{')) {
        try {
          (form as Record<string, unknown>)[k] = JSON.parse(v);
        } catch {
          // a plain string after all
        }
      }
    }
    return form;
  };
  const buttonsOf = (blocks: unknown): SlackMessage['buttons'] => {
    if (!Array.isArray(blocks)) return [];
    return blocks
      .filter((b: { type?: string }) => b.type === 'actions')
      .flatMap(
        (b: { elements?: Array<{ text?: { text?: string }; value?: string }> }) => b.elements ?? [],
      )
      .map((e) => ({ text: e.text?.text ?? '', value: e.value ?? '' }));
  };
  const unescape = (text: string) =>
    text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');

  let port = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const method = /^\/api\/([\w.]+)$/.exec(req.url ?? '')?.[1] ?? '';
      const body = await readBody(req);
      calls.push({ method, body, at: Date.now() });
      const auth = req.headers.authorization ?? '';
      const wanted = method === 'apps.connections.open' ? appToken : botToken;
      if (auth !== `Bearer ${wanted}` && body.token !== wanted)
        return json(res, 200, { ok: false, error: 'invalid_auth' });
      const failure = failures.get(method)?.shift();
      if (failure) {
        if (failure.status === 429)
          return json(
            res,
            429,
            { ok: false, error: 'ratelimited' },
            { 'retry-after': String(failure.retryAfter ?? 1) },
          );
        return json(res, failure.status, { ok: false, error: failure.error ?? 'fatal_error' });
      }
      switch (method) {
        case 'auth.test':
          return json(res, 200, {
            ok: true,
            user_id: 'UBOT',
            bot_id: 'BBOT',
            team_id: 'T1',
            user: 'steward',
          });
        case 'apps.connections.open':
          return json(res, 200, { ok: true, url: `ws://127.0.0.1:${port}/link` });
        case 'chat.postMessage': {
          const channel = String(body.channel);
          const message: SlackMessage = {
            channel: channel.startsWith('U') ? dmOf(channel) : channel,
            ts: nextTs(),
            text: unescape(String(body.text ?? '')),
            edits: [],
            buttons: buttonsOf(body.blocks),
          };
          messages.push(message);
          return json(res, 200, {
            ok: true,
            channel: message.channel,
            ts: message.ts,
            message: { text: body.text },
          });
        }
        case 'chat.update': {
          const message = messages.find((m) => m.channel === body.channel && m.ts === body.ts);
          if (!message) return json(res, 200, { ok: false, error: 'message_not_found' });
          message.edits.push(unescape(String(body.text ?? '')));
          message.buttons = buttonsOf(body.blocks);
          return json(res, 200, { ok: true, channel: message.channel, ts: message.ts });
        }
        case 'chat.postEphemeral':
          ephemeral.push({
            channel: String(body.channel),
            user: String(body.user),
            text: unescape(String(body.text)),
          });
          return json(res, 200, { ok: true, message_ts: nextTs() });
        default:
          return json(res, 200, { ok: false, error: 'unknown_method' });
      }
    })().catch((err: unknown) => json(res, 500, { ok: false, error: String(err) }));
  });
  const wss = new WebSocketServer({ server, path: '/link' });
  wss.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as { envelope_id?: string };
      if (frame.envelope_id) acks.push(frame.envelope_id);
    });
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: 1,
        connection_info: { app_id: 'A1' },
        debug_info: { host: 'stand-in' },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;

  const envelope = (type: string, payload: unknown) => {
    const frame = JSON.stringify({
      envelope_id: `env-${seq++}`,
      type,
      accepts_response_payload: false,
      payload,
    });
    for (const socket of sockets) socket.send(frame);
  };

  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    botToken,
    appToken,
    calls,
    messages,
    ephemeral,
    acks,
    connections: () => sockets.size,
    userWrites(user, text, threadTs) {
      const ts = nextTs();
      envelope('events_api', {
        type: 'event_callback',
        team_id: 'T1',
        api_app_id: 'A1',
        event_id: `Ev${seq++}`,
        event_time: clock,
        event: {
          type: 'message',
          channel: dmOf(user),
          channel_type: 'im',
          user,
          text,
          ts,
          ...(threadTs ? { thread_ts: threadTs } : {}),
        },
      });
    },
    userTaps(user, message, value) {
      envelope('interactive', {
        type: 'block_actions',
        user: { id: user },
        team: { id: 'T1' },
        api_app_id: 'A1',
        channel: { id: message.channel },
        container: { type: 'message', message_ts: message.ts, channel_id: message.channel },
        message: { ts: message.ts, text: message.text },
        trigger_id: 'trigger',
        response_url: `http://127.0.0.1:${port}/respond`,
        actions: [
          {
            type: 'button',
            action_id: 'steward_0',
            block_id: 'b',
            value,
            action_ts: String(clock),
          },
        ],
      });
    },
    failNext(method, failure) {
      const queued = failures.get(method) ?? [];
      queued.push(failure);
      failures.set(method, queued);
    },
    texts(channel) {
      return messages.filter((m) => m.channel === channel).map((m) => m.edits.at(-1) ?? m.text);
    },
    waitFor: (check, ms = 20_000) => waitUntil(check, ms, 'the Slack stand-in'),
    async close() {
      for (const socket of sockets) socket.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
