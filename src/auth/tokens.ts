import { randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { TOKEN_ALGORITHM, type TokenClaims, type TokenType } from './claims.js';

export interface TokenServiceOptions {
  secret: string;
  issuer: string;
  accessTtlMs: number;
  refreshTtlMs: number;
}

export interface AuthUser {
  username: string;
  role: 'admin';
}

export interface AccessIdentity extends AuthUser {
  sid: string;
}

export interface RefreshIdentity extends AuthUser {
  sid: string;
  jti: string;
}

export interface SignedToken {
  token: string;
  expiresAt: Date;
}

export interface TokenService {
  readonly issuer: string;
  readonly accessTtlMs: number;
  readonly refreshTtlMs: number;
  signAccess(identity: AccessIdentity): SignedToken;
  /** `jti` identifies this refresh token within its session (rotation tracks it). */
  signRefresh(identity: RefreshIdentity): SignedToken;
}

export const newTokenId = (): string => randomBytes(16).toString('base64url');

/**
 * Signs access and refresh tokens. Verification has one home, the @fastify/jwt namespaces of
 * `src/api/plugins/auth.ts` (bearer header, refresh cookie and the chat WebSocket's `?token=`):
 * HS256 only, this issuer, the expected `typ`, every claim of `claims.ts` present.
 */
export function createTokenService(options: TokenServiceOptions): TokenService {
  const { secret, issuer, accessTtlMs, refreshTtlMs } = options;

  const sign = (
    typ: TokenType,
    identity: AuthUser & { sid: string },
    jti: string,
    ttlMs: number,
  ) => {
    const iat = Math.floor(Date.now() / 1000);
    const exp = iat + Math.max(1, Math.floor(ttlMs / 1000));
    const claims: TokenClaims = {
      iss: issuer,
      sub: identity.username,
      typ,
      role: identity.role,
      sid: identity.sid,
      jti,
      iat,
      exp,
    };
    const token = jwt.sign(claims, secret, { algorithm: TOKEN_ALGORITHM });
    return { token, expiresAt: new Date(exp * 1000) };
  };

  return {
    issuer,
    accessTtlMs,
    refreshTtlMs,
    signAccess: (identity) => sign('access', identity, newTokenId(), accessTtlMs),
    signRefresh: (identity) => sign('refresh', identity, identity.jti, refreshTtlMs),
  };
}
