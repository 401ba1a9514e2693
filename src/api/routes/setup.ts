import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AuthModule } from '../../auth/module.js';
import { isLocalRequest, SETUP_TOKEN_HEADER } from '../../auth/setup-token.js';
import { ForbiddenError } from '../../errors/request-errors.js';
import { byIp, rateLimitHook } from '../plugins/rate-limit.js';
import { channelOf } from '../plugins/audit-trail.js';

export const setupStatusSchema = z.object({ setup_required: z.boolean() });
export const setupBodySchema = z.object({
  username: z.string(),
  password: z.string(),
  confirm_password: z.string(),
});
export const setupResultSchema = z.object({ success: z.boolean(), message: z.string() });

/**
 * First-start setup: creates the one admin account. Limited per client IP. From any address but
 * loopback it also needs the one-time setup token.
 */
export const setupRoutes: FastifyPluginAsync<{ auth: AuthModule }> = async (app, { auth }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.addHook('onRequest', rateLimitHook(auth.limits.api, byIp));

  r.get('/setup/status', { schema: { response: { 200: setupStatusSchema } } }, async () => ({
    setup_required: await auth.service.setupRequired(),
  }));

  r.post(
    '/setup',
    { schema: { body: setupBodySchema, response: { 200: setupResultSchema } } },
    async (request) => {
      const local = isLocalRequest(request.socket.remoteAddress, request.headers);
      if (!local && (await auth.service.setupRequired())) {
        const given = request.headers[SETUP_TOKEN_HEADER];
        if (!(await auth.setupToken.matches(typeof given === 'string' ? given : undefined))) {
          throw new ForbiddenError(
            `setup from another machine needs the one-time setup token: send it in the X-Setup-Token header; Steward printed it at start and keeps it in ${auth.setupToken.file}`,
          );
        }
      }
      await auth.service.setup(request.body, { ip: request.ip, channel: channelOf(request) });
      await auth.setupToken.discard();
      return { success: true, message: 'admin account created; log in with POST /api/auth/login' };
    },
  );
};
