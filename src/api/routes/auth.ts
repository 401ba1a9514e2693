import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { checkClaims } from '../../auth/claims.js';
import type { AuthModule } from '../../auth/module.js';
import { InvalidRefreshTokenError, NoRefreshTokenError } from '../../errors/auth-errors.js';
import { UnauthorizedError } from '../../errors/request-errors.js';
import {
  bearerClaims,
  clearRefreshCookie,
  REFRESH_COOKIE,
  setRefreshCookie,
} from '../plugins/auth.js';
import { byIp, rateLimitHook } from '../plugins/rate-limit.js';
import { channelOf } from '../plugins/audit-trail.js';

export const loginBodySchema = z.object({ username: z.string(), password: z.string() });
export const loginResultSchema = z.object({ message: z.string() });
export const sessionSchema = z.object({
  access_token: z.string(),
  expires_at: z.string(),
  username: z.string(),
});
export const currentUserSchema = z.object({ username: z.string(), role: z.string() });

/** Login, access-token refresh and logout: no bearer needed. */
export const authRoutes: FastifyPluginAsync<{ auth: AuthModule }> = async (app, { auth }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const perIp = rateLimitHook(auth.limits.api, byIp);
  const refreshTtlMs = auth.tokens.refreshTtlMs;

  r.post(
    '/auth/login',
    {
      // Counted before the body is read: every attempt counts, right or wrong.
      onRequest: rateLimitHook(auth.limits.login, byIp),
      schema: { body: loginBodySchema, response: { 200: loginResultSchema } },
    },
    async (request, reply) => {
      const { username, password } = request.body;
      const refresh = await auth.service.login(username, password, {
        ip: request.ip,
        channel: channelOf(request),
      });
      setRefreshCookie(request, reply, refresh.token, refreshTtlMs);
      return { message: 'logged in' };
    },
  );

  r.get(
    '/session',
    { onRequest: perIp, schema: { response: { 200: sessionSchema } } },
    async (request, reply) => {
      if (!request.cookies[REFRESH_COOKIE]) {
        throw new NoRefreshTokenError();
      }
      let claims;
      try {
        claims = checkClaims(await request.refreshJwtVerify(), auth.issuer, 'refresh');
      } catch {
        claims = null;
      }
      if (!claims) throw new InvalidRefreshTokenError();
      const result = await auth.service.refresh(
        { username: claims.sub, role: claims.role, sid: claims.sid, jti: claims.jti },
        { ip: request.ip, channel: channelOf(request) },
      );
      setRefreshCookie(request, reply, result.refresh.token, refreshTtlMs);
      return {
        access_token: result.access.token,
        expires_at: result.access.expiresAt.toISOString(),
        username: result.username,
      };
    },
  );

  /*
   * Logout needs no token (spec), but the refresh cookie has Path=/api/session, so a browser does
   * not send it here. We therefore revoke the session of whatever credential arrives: the refresh
   * cookie when a client sends it anyway, and the session (`sid`) of a valid bearer access token,
   * which is what a browser client holds. Either way the answer is 204 with the cookie expired, so
   * logout never fails and never tells a caller whether a credential was valid.
   */
  r.post('/auth/logout', { onRequest: perIp }, async (request, reply) => {
    const sids: string[] = [];
    const bearer = request.headers.authorization ? await bearerClaims(request, auth.issuer) : null;
    if (bearer) sids.push(bearer.sid);
    if (request.cookies[REFRESH_COOKIE]) {
      try {
        const refresh = checkClaims(await request.refreshJwtVerify(), auth.issuer, 'refresh');
        if (refresh) sids.push(refresh.sid);
      } catch {}
    }
    await auth.service.logout(sids, { ip: request.ip, channel: channelOf(request) });
    clearRefreshCookie(request, reply);
    return reply.code(204).send();
  });
};

/** The current user: behind the guards, which set `request.user`. */
export const meRoutes: FastifyPluginAsync = async (app) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get('/auth/me', { schema: { response: { 200: currentUserSchema } } }, async (request) => {
    if (!request.user) throw new UnauthorizedError();
    return { username: request.user.username, role: request.user.role };
  });
};
