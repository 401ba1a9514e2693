import websocket from '@fastify/websocket';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { EngineClient } from '../../engine/client.js';
import type { ChatEvent, EventHub } from '../../engine/event-hub.js';
import type { SessionsService } from '../../engine/sessions-service.js';
import { isAppError } from '../../errors/catalogue.js';
import { openConversation } from '../../engine/conversation.js';
import { ServiceUnavailableError, UnauthorizedError } from '../../errors/request-errors.js';
import type { StreamRedactor } from '../../secrets/stream-redactor.js';
import type { AccessCheck } from '../../auth/access-check.js';
import type { TokenClaims } from '../../auth/claims.js';
import { tokenClaims } from '../plugins/auth.js';

/** DESIGN "sizes": a WebSocket frame is at most 64 KiB, a chat message 32 KiB. */
export const MAX_FRAME_BYTES = 64 * 1024;
export const MAX_MESSAGE_CHARS = 32 * 1024;

export interface ChatRouteOptions {
  sessions: Pick<SessionsService, 'get'>;
  client: Pick<EngineClient, 'promptAsync'>;
  hub: EventHub;
  /** The token issuer (`admin.jwt.issuer`); the `/api` scope's auth plugin verifies the token. */
  issuer: string;
  /**
   * The access token's session must still live, as for every other protected route: checked at
   * the upgrade, before each prompt, and watched while the socket is open.
   */
  access: Pick<AccessCheck, 'allows' | 'allowsNow' | 'watch'>;
  /** A fresh streaming redactor per connection: secrets split across text pieces are caught. */
  createRedactor: () => StreamRedactor;
}

const params = z.object({ id: z.string().min(1).max(128) });
const query = z.object({ token: z.string().optional() });
const clientMessage = z.object({
  type: z.literal('message'),
  content: z.string().min(1).max(MAX_MESSAGE_CHARS),
});

type ServerMessage = ChatEvent | { type: 'connected'; session_id: string };

/** The close frame for a socket whose login session ended (1008: policy violation). */
export const SESSION_ENDED = {
  code: 1008,
  reason: 'session ended (logged out or revoked): log in again',
} as const;
/** What `ws` hands a message listener (its types are not installed). */
type RawData = Buffer | ArrayBuffer | Buffer[];
interface ChatSocket {
  readonly readyState: number;
  readonly OPEN: number;
  send(data: string): void;
  close(code: number, reason: string): void;
  on(event: 'close', listener: () => void): void;
  on(event: 'message', listener: (data: RawData) => void): void;
}

/**
 * `WS /api/sessions/:id/chat?token=…` (SPEC "Events"). Registered outside the bearer guard:
 * an upgrade request cannot carry headers, so the token is checked here before the upgrade, by
 * the same @fastify/jwt verifier as the bearer header.
 */
export const chatRoutes: FastifyPluginAsync<ChatRouteOptions> = async (app, options) => {
  const { sessions, client, hub, issuer, access, createRedactor } = options;
  if (!app.hasDecorator('jwt')) {
    throw new Error('the chat routes need the auth plugin registered on their scope first');
  }
  if (!app.hasPlugin('@fastify/websocket')) {
    // Frames up to 1 MiB reach the handler, which answers oversized ones without closing.
    await app.register(websocket, { options: { maxPayload: 1024 * 1024 } });
  }
  const r = app.withTypeProvider<ZodTypeProvider>();
  /** The verified claims of each upgrade request, from the check to the handler. */
  const claimsOf = new WeakMap<object, TokenClaims>();

  r.get(
    '/sessions/:id/chat',
    {
      websocket: true,
      schema: { params, querystring: query },
      preValidation: async (req) => {
        const token = req.query.token;
        if (!token) throw new UnauthorizedError('missing token');
        const claims = tokenClaims(app, token, 'access', issuer);
        if (!claims || !(await access.allows(claims))) {
          throw new UnauthorizedError('invalid or expired access token');
        }
        await sessions.get(req.params.id);
        claimsOf.set(req, claims);
      },
    },
    (ws, req) => {
      const socket = ws as ChatSocket;
      const sessionID = req.params.id;
      const claims = claimsOf.get(req) as TokenClaims;
      const send = (message: ServerMessage) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
      };
      const conversation = openConversation({ client, hub, createRedactor }, sessionID, send);
      /** The spec's one error form, also for a frame the client got wrong. */
      const invalid = (why: string) =>
        send({ type: 'error', content: `Engine error: invalid message: ${why}` });
      // Logout or revocation anywhere in the deployment ends this socket, as it ends REST calls.
      const endSession = () => {
        if (socket.readyState === socket.OPEN)
          socket.close(SESSION_ENDED.code, SESSION_ENDED.reason);
      };
      const unwatch = access.watch(claims, endSession);
      socket.on('close', () => {
        conversation.close();
        unwatch();
      });
      socket.on('message', (data: RawData) => void onMessage(data));
      send({ type: 'connected', session_id: sessionID });

      async function onMessage(data: RawData) {
        if (byteLength(data) > MAX_FRAME_BYTES) {
          return invalid(`larger than ${MAX_FRAME_BYTES} bytes`);
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(rawText(data));
        } catch {
          return invalid('not JSON');
        }
        const message = clientMessage.safeParse(parsed);
        if (!message.success) {
          return invalid(
            `expected {"type":"message","content":string of 1 to ${MAX_MESSAGE_CHARS} characters}`,
          );
        }
        try {
          // Read now, not from the cache: a prompt sent just after logout must not reach the
          // engine. Without Redis nothing is sent either, as REST answers 503 then.
          const allowed = await access.allowsNow(claims).catch(() => {
            throw new ServiceUnavailableError('the store is unavailable; try again shortly');
          });
          if (!allowed) return endSession();
          await conversation.prompt(message.data.content);
        } catch (err) {
          const text = isAppError(err) ? err.message : 'AI engine failed';
          req.log.warn({ err, sessionID }, 'chat prompt failed');
          send({ type: 'error', content: `Engine error: ${text}` });
        }
      }
    },
  );
};

function byteLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, b) => sum + b.length, 0);
  return data instanceof ArrayBuffer ? data.byteLength : data.length;
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data).toString('utf8');
}
