import type { SessionRepository } from '../store/session-repository.js';
import type { TokenClaims } from './claims.js';

export interface AccessCheckOptions {
  sessions: Pick<SessionRepository, 'owner'>;
  /** `admin.jwt.access_expiry`: no access token may live longer. */
  accessTtlMs: number;
  /** How long a session's liveness is trusted before it is read again. */
  cacheMs?: number;
  /** How often `watch` reads the sessions of long-lived connections. */
  watchMs?: number;
}

/**
 * What a valid signature does not prove about an access token: that its login session still
 * lives (logout and refresh-family revocation end it within `cacheMs`, not at the token's
 * expiry 15 minutes later), that the session belongs to the token's user, and that the token
 * lives no longer than `access_expiry`. One Redis read per session every few seconds at most.
 *
 * A request is checked once; a connection that outlives it (the chat WebSocket) is `watch`ed:
 * one timer per process reads every watched session each `watchMs` (0.5 s), so a logout or a
 * revocation on any API replica ends the connection within a second, with no message bus to
 * miss an event while it reconnects.
 */
export function createAccessCheck(options: AccessCheckOptions) {
  const cacheMs = options.cacheMs ?? 2_000;
  const watchMs = options.watchMs ?? 500;
  const maxLifetimeS = Math.ceil(options.accessTtlMs / 1000) + 1;
  const owners = new Map<string, { owner: string | null; at: number }>();

  async function readOwner(sid: string): Promise<string | null> {
    const owner = await options.sessions.owner(sid);
    // Bounded: sessions are few, but a flood of forged-but-signed ids must not grow it forever.
    if (owners.size >= 10_000) owners.clear();
    owners.set(sid, { owner, at: Date.now() });
    return owner;
  }

  async function ownerOf(sid: string): Promise<string | null> {
    const cached = owners.get(sid);
    if (cached && Date.now() - cached.at < cacheMs) return cached.owner;
    return readOwner(sid);
  }

  const withinLifetime = (claims: TokenClaims) => claims.exp - claims.iat <= maxLifetimeS;

  const watchers = new Set<{ claims: TokenClaims; onEnd: () => void }>();
  let timer: NodeJS.Timeout | undefined;
  let reading = false;

  async function sweep(): Promise<void> {
    if (reading) return;
    reading = true;
    try {
      const sids = [...new Set([...watchers].map((w) => w.claims.sid))];
      const read = await Promise.all(
        // A Redis outage is not a logout: keep the connection until the store answers.
        sids.map(async (sid) => [sid, await readOwner(sid).catch(() => undefined)] as const),
      );
      const live = new Map(read);
      for (const w of [...watchers]) {
        const owner = live.get(w.claims.sid);
        if (owner !== undefined && owner !== w.claims.sub) {
          watchers.delete(w);
          w.onEnd();
        }
      }
    } finally {
      reading = false;
      if (watchers.size === 0 && timer) {
        clearInterval(timer);
        timer = undefined;
      }
    }
  }

  return {
    async allows(claims: TokenClaims): Promise<boolean> {
      if (!withinLifetime(claims)) return false;
      return (await ownerOf(claims.sid)) === claims.sub;
    },
    /** As `allows`, reading the session now: for an action on a long-lived connection. */
    async allowsNow(claims: TokenClaims): Promise<boolean> {
      if (!withinLifetime(claims)) return false;
      return (await readOwner(claims.sid)) === claims.sub;
    },
    /**
     * Calls `onEnd` once, within `watchMs` and a Redis round trip, after the token's session
     * ends. Returns the function that stops watching (call it when the connection closes).
     */
    watch(claims: TokenClaims, onEnd: () => void): () => void {
      const watcher = { claims, onEnd };
      watchers.add(watcher);
      if (!timer) {
        timer = setInterval(() => void sweep(), watchMs);
        // Watching never holds the process open by itself.
        timer.unref();
      }
      return () => {
        watchers.delete(watcher);
      };
    },
  };
}

export type AccessCheck = ReturnType<typeof createAccessCheck>;
