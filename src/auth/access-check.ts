import type { SessionRepository } from '../store/session-repository.js';
import type { TokenClaims } from './claims.js';

export interface AccessCheckOptions {
  sessions: Pick<SessionRepository, 'owner'>;
  /** `admin.jwt.access_expiry`: no access token may live longer. */
  accessTtlMs: number;
  /** How long a session's liveness is trusted before it is read again. */
  cacheMs?: number;
}

/**
 * What a valid signature does not prove about an access token: that its login session still
 * lives (logout and refresh-family revocation end it within `cacheMs`, not at the token's
 * expiry 15 minutes later), that the session belongs to the token's user, and that the token
 * lives no longer than `access_expiry`. One Redis read per session every few seconds at most.
 */
export function createAccessCheck(options: AccessCheckOptions) {
  const cacheMs = options.cacheMs ?? 2_000;
  const maxLifetimeS = Math.ceil(options.accessTtlMs / 1000) + 1;
  const owners = new Map<string, { owner: string | null; at: number }>();

  async function ownerOf(sid: string): Promise<string | null> {
    const now = Date.now();
    const cached = owners.get(sid);
    if (cached && now - cached.at < cacheMs) return cached.owner;
    const owner = await options.sessions.owner(sid);
    // Bounded: sessions are few, but a flood of forged-but-signed ids must not grow it forever.
    if (owners.size >= 10_000) owners.clear();
    owners.set(sid, { owner, at: now });
    return owner;
  }

  return {
    async allows(claims: TokenClaims): Promise<boolean> {
      if (claims.exp - claims.iat > maxLifetimeS) return false;
      return (await ownerOf(claims.sid)) === claims.sub;
    },
  };
}

export type AccessCheck = ReturnType<typeof createAccessCheck>;
