import type { TokenClaims } from '../../auth/claims.js';

/** Access tokens whose verification is remembered at once, the oldest dropped first. */
const maxTokens = 1000;

export interface VerifiedTokens {
  /** The claims of the token this header carried when it was verified, until the token expires. */
  get(header: string): TokenClaims | undefined;
  set(header: string, claims: TokenClaims): void;
}

/**
 * Bearer headers whose token passed the access verifier, by their exact text. A client sends
 * the same header with every request, and the verifier's own cache (fast-jwt's) still merges
 * options, decodes the token and hashes it on each one: about 25 µs per request here, a tenth of
 * the API's own work on a script run. The same text carries the same signed token, so it passes
 * again until the token's `exp`; revocation is the session check's (auth/access-check.ts), which
 * runs on every request either way.
 */
export function createVerifiedTokens(now: () => number = Date.now): VerifiedTokens {
  const known = new Map<string, TokenClaims>();
  return {
    get(header) {
      const claims = known.get(header);
      if (claims === undefined) return undefined;
      if (claims.exp * 1000 > now()) return claims;
      known.delete(header);
      return undefined;
    },
    set(header, claims) {
      if (known.size >= maxTokens) {
        const oldest = known.keys().next().value;
        if (oldest !== undefined) known.delete(oldest);
      }
      known.set(header, claims);
    },
  };
}
