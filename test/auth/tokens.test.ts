import Fastify, { type FastifyInstance } from 'fastify';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authPlugin, tokenClaims } from '../../src/api/plugins/auth.js';
import type { TokenClaims, TokenType } from '../../src/auth/claims.js';
import { createTokenService } from '../../src/auth/tokens.js';
import { badTokens } from './bad-tokens.js';

const secret = 'x'.repeat(48);
const tokens = createTokenService({
  secret,
  issuer: 'steward-test',
  accessTtlMs: 15 * 60_000,
  refreshTtlMs: 72 * 3_600_000,
});
const identity = { username: 'admin', role: 'admin' as const, sid: 'sid-1' };

// Tokens are verified in one place only: the @fastify/jwt namespaces of the auth plugin.
let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify();
  await app.register(authPlugin, { auth: { secret, issuer: 'steward-test' } });
  await app.ready();
});
afterAll(() => app.close());

const verify = (token: string, typ: TokenType) => tokenClaims(app, token, typ, 'steward-test');
const identityOf = (claims: TokenClaims | null) =>
  claims && { username: claims.sub, role: claims.role, sid: claims.sid };

describe('token service', () => {
  it('signs access tokens it verifies, with the configured lifetime', async () => {
    const before = Date.now();
    const { token, expiresAt } = tokens.signAccess(identity);
    expect(identityOf(verify(token, 'access'))).toEqual(identity);
    const ttl = expiresAt.getTime() - before;
    expect(ttl).toBeGreaterThan(15 * 60_000 - 2000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000 + 1000);
    const header = JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString());
    expect(header.alg).toBe('HS256');
  });

  it('signs refresh tokens carrying the session and token ids', async () => {
    const { token } = tokens.signRefresh({ ...identity, jti: 'j1' });
    const claims = verify(token, 'refresh');
    expect({ ...identityOf(claims), jti: claims?.jti }).toEqual({ ...identity, jti: 'j1' });
  });

  it('refuses every tampered, foreign or wrong-type token', async () => {
    const bad = badTokens(secret, 'steward-test', tokens);
    for (const [name, token] of Object.entries(bad.asAccess)) {
      expect(verify(token, 'access'), name).toBeNull();
    }
    for (const [name, token] of Object.entries(bad.asRefresh)) {
      expect(verify(token, 'refresh'), name).toBeNull();
    }
  });

  it('jsonwebtoken refuses what our signer never produces (sanity)', () => {
    expect(() => jwt.verify('a.b.c', secret, { algorithms: ['HS256'] })).toThrow();
  });
});
