import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authGuards,
  authPlugin,
  bearerClaims,
  clearRefreshCookie,
  hostName,
  REFRESH_COOKIE_PATH,
  setRefreshCookie,
} from '../../../src/api/plugins/auth.js';
import { errorsPlugin } from '../../../src/api/plugins/errors.js';
import { createAuthModule, type AuthModule } from '../../../src/auth/module.js';
import { createSessionRepository } from '../../../src/store/session-repository.js';
import { loadConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/log/logger.js';
import type { Redis } from '../../../src/store/redis.js';
import { badTokens } from '../../auth/bad-tokens.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../../support/redis.js';
import { memoryTrail } from '../../support/trail.js';

describe('hostName', () => {
  it('strips the port and lowercases', () => {
    expect(hostName('LocalHost:8080')).toBe('localhost');
    expect(hostName(' steward.example ')).toBe('steward.example');
    expect(hostName('127.0.0.1:80')).toBe('127.0.0.1');
  });

  it('keeps IPv6 brackets and leaves a bare IPv6 address whole', () => {
    expect(hostName('[::1]:8080')).toBe('[::1]');
    expect(hostName('[::1]')).toBe('[::1]');
    expect(hostName('::1')).toBe('::1');
    expect(hostName('[::1')).toBe('[::1');
  });
});

describe('auth plugin', () => {
  const prefix = uniquePrefix('auth-plugin');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-auth-plugin-'));
  let redis: Redis;
  let auth: AuthModule;
  let app: FastifyInstance;
  let access: string;
  let refresh: string;
  const identity = { username: 'admin', role: 'admin' as const, sid: 'sid-1' };

  beforeAll(async () => {
    redis = storeRedis(prefix);
    auth = await createAuthModule({
      trail: memoryTrail(),
      config: loadConfig({
        cwd: dir,
        env: {},
        overrides: {
          data_dir: 'data',
          'admin.jwt.issuer': 'steward-test',
          'admin.rate_limit.api_per_minute': 3,
        },
      }),
      redis,
      log: createLogger('silent'),
    });
    // A live login session for the identity: access tokens are bound to theirs.
    await createSessionRepository(redis, { ttlMs: 60_000, graceMs: 1_000 }).create(
      identity.sid,
      identity.username,
      'j1',
    );
    access = auth.tokens.signAccess(identity).token;
    refresh = auth.tokens.signRefresh({ ...identity, jti: 'j1' }).token;
    app = Fastify();
    await app.register(errorsPlugin);
    await app.register(authPlugin, { auth });
    app.get('/claims', async (request) => ({ claims: await bearerClaims(request, auth.issuer) }));
    app.get('/refresh', async (request) => ({ claims: await request.refreshJwtVerify() }));
    app.get('/cookie', async (request, reply) => {
      setRefreshCookie(request, reply, 'tok', 90_500);
      return { ok: true };
    });
    app.get('/clear', async (request, reply) => {
      clearRefreshCookie(request, reply);
      return { ok: true };
    });
    app.register(async (scope) => {
      const guards = authGuards(auth);
      for (const guard of guards.onRequest) scope.addHook('onRequest', guard);
      scope.addHook('preHandler', guards.preHandler);
      scope.get('/protected', async (request) => ({ user: request.user }));
    });
    await app.ready();
  });

  afterAll(async () => {
    await app.close();
    redis.disconnect();
    await dropPrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (url: string, headers: Record<string, string> = {}, cookies = {}) =>
    app.inject({ method: 'GET', url, headers, cookies });

  it('reads the claims of a valid bearer access token', async () => {
    const res = await get('/claims', { authorization: `Bearer ${access}` });
    expect(res.json().claims).toMatchObject({ sub: 'admin', typ: 'access', sid: 'sid-1' });
    expect((await get('/claims')).json().claims).toBeNull();
  });

  it('refuses every tampered, foreign, expired or wrong-type bearer token', async () => {
    const bad = badTokens(auth.secret, auth.issuer, auth.tokens);
    for (const [name, token] of Object.entries(bad.asAccess)) {
      const res = await get('/claims', { authorization: `Bearer ${token}` });
      expect(res.json().claims, name).toBeNull();
    }
  });

  it('refuses a token it accepted before once the token has expired (verified tokens are cached)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const shortLived = jwt.sign(
      {
        iss: auth.issuer,
        sub: 'admin',
        typ: 'access',
        role: 'admin',
        sid: 'sid-1',
        jti: 'short',
        iat: now,
        exp: now + 1,
      },
      auth.secret,
      { algorithm: 'HS256' },
    );
    const header = { authorization: `Bearer ${shortLived}` };
    expect((await get('/claims', header)).json().claims).toMatchObject({ jti: 'short' });
    await new Promise((r) => setTimeout(r, (now + 1) * 1000 - Date.now() + 200));
    expect((await get('/claims', header)).json().claims).toBeNull();
  });

  it('reads the refresh token from the cookie only, never from a bearer header', async () => {
    const fromCookie = await get('/refresh', {}, { refresh });
    expect(fromCookie.statusCode).toBe(200);
    expect(fromCookie.json().claims).toMatchObject({ typ: 'refresh', jti: 'j1' });
    const fromHeader = await get('/refresh', { authorization: `Bearer ${refresh}` });
    expect(fromHeader.statusCode).toBe(401);
  });

  it('sets the refresh cookie httpOnly, strict, on the session path, Secure except on loopback', async () => {
    const remote = await get('/cookie', { host: 'steward.example' });
    expect(remote.cookies[0]).toMatchObject({
      name: 'refresh',
      value: 'tok',
      path: REFRESH_COOKIE_PATH,
      maxAge: 90,
      httpOnly: true,
      secure: true,
      sameSite: 'Strict',
    });
    for (const host of ['localhost:8080', '127.0.0.1', '[::1]:8080']) {
      const local = await get('/cookie', { host });
      expect(local.cookies[0]?.secure, host).toBeUndefined();
    }
  });

  it('clears the refresh cookie on the same path', async () => {
    const res = await get('/clear', { host: 'steward.example' });
    expect(res.cookies[0]).toMatchObject({ name: 'refresh', value: '', path: REFRESH_COOKIE_PATH });
    expect(res.headers['set-cookie']).toMatch(/Max-Age=-1|Expires=Thu, 01 Jan 1970/);
  });

  it('lets a header it verified before through the guard only until its token expires', async () => {
    await createSessionRepository(redis, { ttlMs: 60_000, graceMs: 1_000 }).create(
      'sid-2',
      'brief',
      'j2',
    );
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: auth.issuer, sub: 'brief', typ: 'access', role: 'admin', sid: 'sid-2' };
    const sign = (jti: string, exp: number) =>
      jwt.sign({ ...claims, jti, iat: now, exp }, auth.secret, { algorithm: 'HS256' });
    const header = { authorization: `Bearer ${sign('brief', now + 1)}` };
    expect((await get('/protected', header)).json().user).toEqual({
      username: 'brief',
      role: 'admin',
    });
    // Another token of the same length, its signature cut: never taken for the one verified.
    const token = sign('long', now + 60);
    const forged = `Bearer ${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await get('/protected', { authorization: forged })).statusCode).toBe(401);
    await new Promise((r) => setTimeout(r, (now + 1) * 1000 - Date.now() + 200));
    expect((await get('/protected', header)).statusCode).toBe(401);
  });

  it('guards protected routes: 401 unauthorized without a valid access token', async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: 'Basic YWRtaW46eA==' },
      { authorization: `Bearer ${refresh}` },
      { authorization: 'Bearer not-a-token' },
    ];
    // From clients of their own: refused requests count against the (here 3/min) limit too.
    for (const [i, headers] of attempts.entries()) {
      const res = await app.inject({
        method: 'GET',
        url: '/protected',
        headers,
        remoteAddress: `10.9.0.${i + 1}`,
      });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({
        error: 'unauthorized',
        message: 'missing or invalid authentication',
      });
    }
  });

  it('sets request.user, then counts the rate limit per user', async () => {
    const ok = await get('/protected', { authorization: `Bearer ${access}` });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().user).toEqual({ username: 'admin', role: 'admin' });
    // From another address, the same user shares the count (limit 3 per minute).
    await get('/protected', { authorization: `Bearer ${access}` });
    await get('/protected', { authorization: `Bearer ${access}` });
    const limited = await app.inject({
      method: 'GET',
      url: '/protected',
      remoteAddress: '203.0.113.50',
      headers: { authorization: `Bearer ${access}` },
    });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error).toBe('rate_limited');
  });
});
