import { statSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authPlugin, tokenClaims } from '../../src/api/plugins/auth.js';
import type { TokenClaims, TokenType } from '../../src/auth/claims.js';
import { loadJwtSecret } from '../../src/auth/jwt-secret.js';
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
});

describe('signing secret', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'steward-jwt-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is generated once into <data>/jwt_secret with mode 0600 and 256 bits', async () => {
    const dataDir = path.join(dir, 'data');
    const first = await loadJwtSecret({ dataDir });
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    const file = path.join(dataDir, 'jwt_secret');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await readFile(file, 'utf8')).trim()).toBe(first);
    expect(await loadJwtSecret({ dataDir })).toBe(first);
  });

  it('is the same for processes starting together on one data dir', async () => {
    const dataDir = path.join(dir, 'race');
    const secrets = await Promise.all(Array.from({ length: 8 }, () => loadJwtSecret({ dataDir })));
    expect(new Set(secrets).size).toBe(1);
  });

  it('is overridden by the configured secret (ADMIN_JWT_SECRET)', async () => {
    const configured = 'c'.repeat(40);
    expect(await loadJwtSecret({ configured, dataDir: path.join(dir, 'data') })).toBe(configured);
  });

  it('refuses a truncated secret file', async () => {
    const dataDir = path.join(dir, 'short');
    await loadJwtSecret({ dataDir });
    await writeFile(path.join(dataDir, 'jwt_secret'), 'short\n');
    await expect(loadJwtSecret({ dataDir })).rejects.toThrow(/fewer than 32/);
  });

  it('jsonwebtoken refuses what our signer never produces (sanity)', () => {
    expect(() => jwt.verify('a.b.c', secret, { algorithms: ['HS256'] })).toThrow();
  });
});
