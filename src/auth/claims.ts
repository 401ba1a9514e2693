import { z } from 'zod';

/** The one algorithm tokens are signed and verified with; every other `alg` is refused. */
export const TOKEN_ALGORITHM = 'HS256' as const;

export type TokenType = 'access' | 'refresh';

/**
 * The claims of both token kinds. `typ` keeps a refresh token from being used as an access token
 * and the reverse; `sid` names the login session both belong to, so that logout and refresh reuse
 * can revoke a whole session.
 */
export const tokenClaimsSchema = z.object({
  iss: z.string(),
  sub: z.string().min(1),
  typ: z.enum(['access', 'refresh']),
  role: z.literal('admin'),
  sid: z.string().min(1),
  jti: z.string().min(1),
  iat: z.number().int(),
  exp: z.number().int(),
});
export type TokenClaims = z.infer<typeof tokenClaimsSchema>;

/** Claims every token must carry; the verifier refuses a token missing one. */
export const requiredClaims = ['iss', 'sub', 'typ', 'role', 'sid', 'jti', 'iat', 'exp'] as const;

/**
 * The checks that follow @fastify/jwt's signature, algorithm, issuer and expiry verification:
 * every claim well formed, our issuer, the expected token type.
 */
export function checkClaims(payload: unknown, issuer: string, typ: TokenType): TokenClaims | null {
  const parsed = tokenClaimsSchema.safeParse(payload);
  if (!parsed.success) return null;
  if (parsed.data.iss !== issuer || parsed.data.typ !== typ) return null;
  return parsed.data;
}
