import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ChatAccess } from '../../chat/chat-access.js';
import { UnauthorizedError } from '../../errors/request-errors.js';
import { sameSecret } from '../same-secret.js';

export const pairingSchema = z.object({
  code: z.string(),
  provider: z.string(),
  user_id: z.string(),
  chat_id: z.string(),
  name: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
});

export const identitySchema = z.object({
  provider: z.string(),
  user_id: z.string(),
  chat_id: z.string(),
  name: z.string(),
  approved_at: z.string(),
});

const params = z.object({
  code: z.string().regex(/^[A-Za-z0-9]{8}$/, 'a pairing code has 8 letters and digits'),
});

/**
 * `/api/chat`: pairing requests from chat users the allow-lists do not name, and the identities
 * approved so far (DESIGN "Chat gateway": deny by default).
 */
export const chatAdminRoutes: FastifyPluginAsync<{ access: ChatAccess }> = async (
  app,
  { access },
) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/chat/pairings', { schema: { response: { 200: z.array(pairingSchema) } } }, async () =>
    access.pairings(),
  );

  r.post(
    '/chat/pairings/:code/approve',
    {
      config: { audit: 'chat.pairing.approve' },
      schema: { params, response: { 200: identitySchema } },
    },
    async (req) => {
      const identity = await access.approve(req.params.code);
      req.auditDetails = { provider: identity.provider, user_id: identity.user_id };
      return identity;
    },
  );

  r.post(
    '/chat/pairings/:code/deny',
    {
      config: { audit: 'chat.pairing.deny' },
      schema: { params, response: { 200: pairingSchema } },
    },
    async (req) => {
      const pairing = await access.deny(req.params.code);
      req.auditDetails = { provider: pairing.provider, user_id: pairing.user_id };
      return pairing;
    },
  );

  r.get('/chat/identities', { schema: { response: { 200: z.array(identitySchema) } } }, async () =>
    access.identities(),
  );
};

export interface TelegramWebhookOptions {
  /** The secret Telegram must send, derived from the bot token; null while no token is stored. */
  secret: () => Promise<string | null>;
  /** Queues an update (JSON) for the gateway's leader. */
  push: (update: string) => Promise<void>;
}

const telegramUpdate = z.looseObject({ update_id: z.number().int() });

/**
 * `POST /api/chat/telegram/webhook` (webhook mode, `chat.telegram.webhook_url`): Telegram's
 * calls, signed with the secret set by the gateway's leader; the update is queued for the leader
 * and answered at once. Public (no bearer token), so it is checked in constant time and the body
 * must be an update.
 */
export const telegramWebhookRoutes: FastifyPluginAsync<TelegramWebhookOptions> = async (
  app,
  { secret, push },
) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post('/chat/telegram/webhook', { schema: { body: telegramUpdate } }, async (req, reply) => {
    const expected = await secret();
    const given = req.headers['x-telegram-bot-api-secret-token'];
    if (!expected || typeof given !== 'string' || !sameSecret(given, expected)) {
      throw new UnauthorizedError('missing or wrong webhook secret');
    }
    await push(JSON.stringify(req.body));
    return reply.send({ ok: true });
  });
};
