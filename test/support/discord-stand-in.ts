import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { waitUntil } from './wait.js';

/**
 * A Discord stand-in on loopback: REST v10 (gateway/bot, DM channel creation, messages, edits,
 * typing, interaction callbacks; 429 with retry headers on demand) and the gateway WebSocket
 * (HELLO, IDENTIFY → READY, heartbeats with ACKs, MESSAGE_CREATE and INTERACTION_CREATE
 * dispatches). JSON encoding, no compression.
 */
export interface DiscordMessage {
  channel_id: string;
  id: string;
  content: string;
  edits: string[];
  /** custom_id of each button it shows now. */
  buttons: Array<{ label: string; custom_id: string }>;
}

export interface DiscordStandIn {
  /** For `chat.discord.api_root`. */
  readonly apiRoot: string;
  readonly token: string;
  readonly botId: string;
  readonly calls: Array<{
    method: string;
    path: string;
    body: Record<string, unknown>;
    at: number;
  }>;
  readonly messages: DiscordMessage[];
  readonly interactionReplies: Array<{ id: string; content: string; flags: number }>;
  identified(): number;
  heartbeats(): number;
  /** A user writes in their DM with the bot; resolves the DM channel id. */
  userWrites(user: { id: string; username: string }, text: string, replyTo?: string): string;
  /** A user writes in a guild channel. */
  userWritesIn(channelId: string, user: { id: string; username: string }, text: string): void;
  userTaps(user: { id: string; username: string }, message: DiscordMessage, customId: string): void;
  failNext(route: string, failure: { status: number; retryAfter?: number; message?: string }): void;
  texts(channelId: string): string[];
  waitFor<T>(check: () => T | undefined | null | false, ms?: number): Promise<T>;
  close(): Promise<void>;
}

const GUILD = '300000000000000001';

/** `guildChannels`: text channels of the one guild the bot is in (sent in GUILD_CREATE). */
export async function startDiscordStandIn(guildChannels: string[] = []): Promise<DiscordStandIn> {
  const token = 'MTAwMDAwMDAwMDAwMDAwMDAx.stand-in.discord-token-xyz';
  const botId = '100000000000000001';
  const calls: DiscordStandIn['calls'] = [];
  const messages: DiscordMessage[] = [];
  const interactionReplies: DiscordStandIn['interactionReplies'] = [];
  const failures = new Map<
    string,
    Array<{ status: number; retryAfter?: number; message?: string }>
  >();
  const sockets = new Set<WebSocket>();
  let identifies = 0;
  let beats = 0;
  let seq = 0;
  let snowflake = 200000000000000000n;
  const nextId = () => String(snowflake++);
  const dms = new Map<string, string>();
  const dmOf = (userId: string) => {
    let id = dms.get(userId);
    if (!id) dms.set(userId, (id = nextId()));
    return id;
  };

  const json = (
    res: ServerResponse,
    status: number,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    if (body === undefined) {
      res.writeHead(status, headers);
      res.end();
      return;
    }
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    return raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
  };
  const buttonsOf = (components: unknown): DiscordMessage['buttons'] =>
    Array.isArray(components)
      ? components.flatMap((row: { components?: Array<{ label?: string; custom_id?: string }> }) =>
          (row.components ?? []).map((c) => ({
            label: c.label ?? '',
            custom_id: c.custom_id ?? '',
          })),
        )
      : [];
  const user = (u: { id: string; username: string }) => ({
    id: u.id,
    username: u.username,
    discriminator: '0',
    global_name: u.username,
    avatar: null,
    bot: false,
  });
  const messageObject = (m: DiscordMessage) => ({
    id: m.id,
    channel_id: m.channel_id,
    content: m.edits.at(-1) ?? m.content,
    author: { id: botId, username: 'steward', discriminator: '0', bot: true, avatar: null },
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: [],
    pinned: false,
    type: 0,
    components: [],
  });

  let port = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname.replace(/^\/api\/v\d+/, '');
      const body = await readBody(req);
      calls.push({ method: req.method ?? 'GET', path, body, at: Date.now() });
      if (req.headers.authorization !== `Bot ${token}` && !path.startsWith('/interactions/')) {
        return json(res, 401, { message: '401: Unauthorized', code: 0 });
      }
      const route = `${req.method} ${path.replace(/\d{17,20}/g, ':id')}`;
      const failure = failures.get(route)?.shift();
      if (failure) {
        const retry = failure.retryAfter ?? 1;
        if (failure.status === 429) {
          return json(
            res,
            429,
            { message: 'You are being rate limited.', retry_after: retry, global: false },
            {
              'retry-after': String(retry),
              'x-ratelimit-scope': 'user',
              'x-ratelimit-limit': '5',
              'x-ratelimit-remaining': '0',
              'x-ratelimit-reset-after': String(retry),
              'x-ratelimit-bucket': 'b1',
            },
          );
        }
        return json(res, failure.status, {
          message: failure.message ?? 'Unknown Channel',
          code: 10003,
        });
      }
      if (route === 'GET /gateway/bot') {
        return json(res, 200, {
          url: `ws://127.0.0.1:${port}`,
          shards: 1,
          session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 },
        });
      }
      if (route === 'POST /users/@me/channels') {
        const id = dmOf(String(body.recipient_id));
        return json(res, 200, {
          id,
          type: 1,
          recipients: [user({ id: String(body.recipient_id), username: 'u' })],
        });
      }
      let m =
        /^POST \/channels\/:id\/messages$/.test(route) &&
        /^\/channels\/(\d+)\/messages$/.exec(path);
      if (m) {
        const message: DiscordMessage = {
          channel_id: m[1] as string,
          id: nextId(),
          content: String(body.content ?? ''),
          edits: [],
          buttons: buttonsOf(body.components),
        };
        messages.push(message);
        return json(res, 200, messageObject(message), {
          'x-ratelimit-bucket': 'b1',
          'x-ratelimit-limit': '5',
          'x-ratelimit-remaining': '4',
          'x-ratelimit-reset-after': '1',
        });
      }
      const edit = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path);
      if (edit && req.method === 'PATCH') {
        const message = messages.find((x) => x.channel_id === edit[1] && x.id === edit[2]);
        if (!message) return json(res, 404, { message: 'Unknown Message', code: 10008 });
        message.edits.push(String(body.content ?? ''));
        message.buttons = buttonsOf(body.components);
        return json(res, 200, messageObject(message));
      }
      if (/^\/channels\/\d+\/typing$/.test(path)) return json(res, 204);
      m = /^\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(path);
      if (m) {
        const data = (body.data ?? {}) as { content?: string; flags?: number };
        interactionReplies.push({
          id: m[1] as string,
          content: data.content ?? '',
          flags: data.flags ?? 0,
        });
        return json(res, 204);
      }
      return json(res, 404, { message: `404: Not Found ${route}`, code: 0 });
    })().catch((err: unknown) => json(res, 500, { message: String(err), code: 0 }));
  });

  const wss = new WebSocketServer({ server });
  const dispatch = (t: string, d: unknown) => {
    const frame = JSON.stringify({ op: 0, t, s: ++seq, d });
    for (const socket of sockets) socket.send(frame);
  };
  wss.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 41250 }, s: null, t: null }));
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as { op: number };
      if (frame.op === 1) {
        beats++;
        socket.send(JSON.stringify({ op: 11, d: null, s: null, t: null }));
      } else if (frame.op === 2) {
        identifies++;
        socket.send(
          JSON.stringify({
            op: 0,
            t: 'READY',
            s: ++seq,
            d: {
              v: 10,
              user: { id: botId, username: 'steward', discriminator: '0', bot: true, avatar: null },
              guilds: guildChannels.length ? [{ id: GUILD, unavailable: true }] : [],
              session_id: 'stand-in-session',
              resume_gateway_url: `ws://127.0.0.1:${port}`,
              application: { id: botId, flags: 0 },
            },
          }),
        );
        if (guildChannels.length) {
          dispatch('GUILD_CREATE', {
            id: GUILD,
            name: 'Stand-in guild',
            icon: null,
            owner_id: '400000000000000009',
            afk_timeout: 300,
            verification_level: 0,
            default_message_notifications: 0,
            explicit_content_filter: 0,
            roles: [
              {
                id: GUILD,
                name: '@everyone',
                permissions: '0',
                position: 0,
                color: 0,
                hoist: false,
                managed: false,
                mentionable: false,
                flags: 0,
              },
            ],
            emojis: [],
            features: [],
            mfa_level: 0,
            system_channel_flags: 0,
            premium_tier: 0,
            preferred_locale: 'en-US',
            nsfw_level: 0,
            member_count: 2,
            members: [],
            channels: guildChannels.map((id, i) => ({
              id,
              type: 0,
              name: `channel-${i}`,
              position: i,
              guild_id: GUILD,
              permission_overwrites: [],
            })),
            threads: [],
            presences: [],
            voice_states: [],
            stage_instances: [],
            guild_scheduled_events: [],
            large: false,
            unavailable: false,
            joined_at: new Date().toISOString(),
          });
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;

  const created = (
    channelId: string,
    author: { id: string; username: string },
    text: string,
    extra: object = {},
  ) => {
    dispatch('MESSAGE_CREATE', {
      id: nextId(),
      channel_id: channelId,
      author: user(author),
      content: text,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: text.includes(`<@${botId}>`)
        ? [{ id: botId, username: 'steward', discriminator: '0', bot: true, avatar: null }]
        : [],
      mention_roles: [],
      attachments: [],
      embeds: [],
      pinned: false,
      type: 0,
      ...extra,
    });
  };

  return {
    apiRoot: `http://127.0.0.1:${port}/api`,
    token,
    botId,
    calls,
    messages,
    interactionReplies,
    identified: () => identifies,
    heartbeats: () => beats,
    userWrites(author, text, replyTo) {
      const channel = dmOf(author.id);
      created(channel, author, text, {
        channel_type: 1,
        ...(replyTo ? { message_reference: { message_id: replyTo, channel_id: channel } } : {}),
      });
      return channel;
    },
    userWritesIn(channelId, author, text) {
      created(channelId, author, text, {
        channel_type: 0,
        guild_id: GUILD,
        member: {
          roles: [],
          joined_at: new Date().toISOString(),
          deaf: false,
          mute: false,
          flags: 0,
        },
      });
    },
    userTaps(author, message, customId) {
      dispatch('INTERACTION_CREATE', {
        id: nextId(),
        application_id: botId,
        type: 3,
        data: { custom_id: customId, component_type: 2 },
        channel_id: message.channel_id,
        channel: { id: message.channel_id, type: 1 },
        user: user(author),
        token: 'interaction-token',
        version: 1,
        locale: 'en-US',
        app_permissions: '0',
        entitlements: [],
        authorizing_integration_owners: {},
        message: messageObject(message),
      });
    },
    failNext(route, failure) {
      const queued = failures.get(route) ?? [];
      queued.push(failure);
      failures.set(route, queued);
    },
    texts(channelId) {
      return messages
        .filter((m) => m.channel_id === channelId)
        .map((m) => m.edits.at(-1) ?? m.content);
    },
    waitFor: (check, ms = 20_000) => waitUntil(check, ms, 'the Discord stand-in'),
    async close() {
      for (const socket of sockets) socket.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
