import fastifyCookie, { type CookieSerializeOptions } from '@fastify/cookie';
import fastifyJwt from '@fastify/jwt';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  preHandlerHookHandler,
} from 'fastify';
import fp from 'fastify-plugin';
import {
  checkClaims,
  requiredClaims,
  TOKEN_ALGORITHM,
  type TokenClaims,
  type TokenType,
} from '../../auth/claims.js';
import type { AuthModule } from '../../auth/module.js';
import type { AuthUser } from '../../auth/tokens.js';
import { UnauthorizedError } from '../../errors/request-errors.js';
import { isLoopbackHost } from '../../net/loopback.js';
import { byIp, byUserOrIp, countRequest, overlappedRateLimitHooks } from './rate-limit.js';
import { createVerifiedTokens, type VerifiedTokens } from './verified-tokens.js';

declare module '@fastify/jwt' {
  interface FastifyJWT {
    user: AuthUser;
    /** `app.jwt.access` and `app.jwt.refresh`: one namespace per token type. */
    namespaces: TokenType;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** @fastify/jwt's `access` namespace: the bearer token of the Authorization header. */
    accessJwtVerify(): Promise<unknown>;
    /** @fastify/jwt's `refresh` namespace: the `refresh` cookie only. */
    refreshJwtVerify(): Promise<unknown>;
  }
}

export const REFRESH_COOKIE = 'refresh';
export const REFRESH_COOKIE_PATH = '/api/session';

/**
 * Cookies and the two @fastify/jwt namespaces (`access` from the bearer header, `refresh` from the
 * cookie), registered on the `/api` scope before any route so that the guards of the protected
 * scope and the chat WebSocket below it can verify tokens. These namespaces are the only token
 * verifier: HS256 only, our issuer, every claim present and unexpired, then `typ` (`checkClaims`).
 * `src/auth/tokens.ts` only signs.
 */
export const authPlugin = fp<{ auth: Pick<AuthModule, 'secret' | 'issuer'> }>(
  async (app, { auth }) => {
    if (!app.hasRequestDecorator('cookies')) await app.register(fastifyCookie);
    const verify = {
      algorithms: [TOKEN_ALGORITHM] as Array<typeof TOKEN_ALGORITHM>,
      allowedIss: auth.issuer,
      requiredClaims: [...requiredClaims],
    };
    await app.register(fastifyJwt, {
      secret: auth.secret,
      namespace: 'access',
      jwtVerify: 'accessJwtVerify',
      // A client sends the same access token with every request: fast-jwt keeps verified tokens
      // (by their text, until their own expiry), so the signature is checked once, not per call.
      // Logout and revocation are the session check's job (auth/access-check.ts), not this one's.
      verify: { ...verify, cache: true },
    });
    await app.register(fastifyJwt, {
      secret: auth.secret,
      namespace: 'refresh',
      jwtVerify: 'refreshJwtVerify',
      decoratorName: 'refreshClaims',
      cookie: { cookieName: REFRESH_COOKIE, signed: false },
      // A bearer header must never stand in for the refresh cookie.
      verify: { ...verify, onlyCookie: true },
    });
  },
  { name: 'steward-auth' },
);

/**
 * The verified claims of a token that does not arrive in a header or cookie (the chat WebSocket's
 * `?token=`), or null: the same namespace's verifier as `bearerClaims`, so both accept exactly
 * the same tokens.
 */
export function tokenClaims(
  app: FastifyInstance,
  token: string,
  typ: TokenType,
  issuer: string,
): TokenClaims | null {
  try {
    return checkClaims(app.jwt[typ].verify(token), issuer, typ);
  } catch {
    return null;
  }
}

/**
 * The verified claims of the request's bearer access token, or null. With `verified`, a header
 * that passed before answers from there (`verified-tokens.ts`).
 */
export async function bearerClaims(
  request: FastifyRequest,
  issuer: string,
  verified?: VerifiedTokens,
): Promise<TokenClaims | null> {
  const header = request.headers.authorization;
  const known = header === undefined ? undefined : verified?.get(header);
  if (known !== undefined) return known;
  try {
    const claims = checkClaims(await request.accessJwtVerify(), issuer, 'access');
    if (claims !== null && header !== undefined) verified?.set(header, claims);
    return claims;
  } catch {
    return null;
  }
}

/**
 * The guards of every protected `/api` route: bearer authentication (missing, malformed,
 * expired, tampered or wrong-type tokens → 401 `unauthorized`; sets `request.user`), then the
 * per-client rate limit, which therefore counts per user. The count is started at onRequest
 * and its verdict awaited at preHandler (`overlappedRateLimitHooks`).
 */
export function authGuards(auth: AuthModule): {
  onRequest: onRequestHookHandler[];
  preHandler: preHandlerHookHandler;
} {
  const verified = createVerifiedTokens();
  const authenticate: onRequestHookHandler = async function authenticate(request, reply) {
    const claims = await bearerClaims(request, auth.issuer, verified);
    if (!claims || !(await auth.access.allows(claims))) {
      // A refused request still counts, per client IP: 401s are no way around the limit.
      await countRequest(auth.limits.api, byIp, request, reply);
      throw new UnauthorizedError();
    }
    request.user = { username: claims.sub, role: claims.role };
  };
  const limit = overlappedRateLimitHooks(auth.limits.api, byUserOrIp);
  return { onRequest: [authenticate, limit.onRequest], preHandler: limit.preHandler };
}

/** The host name of a Host header value, without port, lowercased (`[::1]` keeps its brackets). */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end === -1 ? h : h.slice(0, end + 1);
  }
  const colon = h.indexOf(':');
  return colon === -1 || h.indexOf(':', colon + 1) !== -1 ? h : h.slice(0, colon);
}

/** Secure is dropped for localhost, where browsers serve plain http. */
function cookieOptions(request: FastifyRequest, maxAge: number): CookieSerializeOptions {
  return {
    maxAge,
    path: REFRESH_COOKIE_PATH,
    httpOnly: true,
    secure: !isLoopbackHost(hostName(request.host ?? '')),
    sameSite: 'strict',
  };
}

export function setRefreshCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  refreshTtlMs: number,
): void {
  reply.setCookie(REFRESH_COOKIE, token, cookieOptions(request, Math.floor(refreshTtlMs / 1000)));
}

export function clearRefreshCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.setCookie(REFRESH_COOKIE, '', cookieOptions(request, -1));
}
