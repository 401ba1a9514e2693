import { Writable } from 'node:stream';
import jwt from 'jsonwebtoken';
import { pino } from 'pino';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createAuthService, type AuthService } from '../../src/auth/auth-service.js';
import { createTokenService } from '../../src/auth/tokens.js';
import { createAdminRepository } from '../../src/store/admin-repository.js';
import { createSessionRepository } from '../../src/store/session-repository.js';
import type { Redis } from '../../src/store/redis.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';
import { memoryTrail } from '../support/trail.js';

const PASSWORD = 'correct horse battery staple';
const client = { ip: '203.0.113.9' };
const tokens = createTokenService({
  secret: 'x'.repeat(48),
  issuer: 'steward-test',
  accessTtlMs: 60_000,
  refreshTtlMs: 3_600_000,
});
const prefixes: string[] = [];
const connections: Redis[] = [];
afterAll(async () => {
  for (const r of connections) r.disconnect();
  for (const p of prefixes) await dropPrefix(p);
});

interface Claims {
  sub: string;
  sid: string;
  jti: string;
  typ: string;
}
const claimsOf = (token: string) => jwt.decode(token) as Claims;
const identityOf = (token: string) => {
  const c = claimsOf(token);
  return { username: c.sub, role: 'admin' as const, sid: c.sid, jti: c.jti };
};

function build(graceMs = 0) {
  const prefix = uniquePrefix('auth-service');
  prefixes.push(prefix);
  const redis = storeRedis(prefix);
  connections.push(redis);
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  const service = createAuthService({
    trail: memoryTrail(),
    admins: createAdminRepository(redis),
    sessions: createSessionRepository(redis, { ttlMs: 3_600_000, graceMs }),
    log: pino({ level: 'info' }, sink),
    tokens,
  });
  const events = () => lines.filter((l) => l.audit === true).map((l) => l.event);
  return { service, lines, events };
}

const setupInput = { username: 'admin', password: PASSWORD, confirm_password: PASSWORD };

describe('setup', () => {
  it('creates the one admin, with the password hashed, and is then closed', async () => {
    const { service, events } = build();
    expect(await service.setupRequired()).toBe(true);
    await service.setup(setupInput, client);
    expect(await service.setupRequired()).toBe(false);
    const admin = await service.admins.get();
    expect(admin?.username).toBe('admin');
    expect(admin?.passwordHash).toMatch(/^\$argon2id\$/);
    await expect(service.setup(setupInput, client)).rejects.toMatchObject({
      code: 'setup_completed',
    });
    expect(events()).toEqual(['setup.completed']);
  });

  it('checks the username, then the confirmation, then the password policy', async () => {
    const { service } = build();
    await expect(
      service.setup({ ...setupInput, username: ' admin', confirm_password: 'x' }, client),
    ).rejects.toMatchObject({ code: 'invalid_request', status: 400 });
    await expect(
      service.setup({ ...setupInput, confirm_password: `${PASSWORD}!` }, client),
    ).rejects.toMatchObject({ code: 'password_mismatch' });
    await expect(
      service.setup({ ...setupInput, password: 'short', confirm_password: 'short' }, client),
    ).rejects.toMatchObject({ code: 'password_invalid' });
    expect(await service.setupRequired()).toBe(true);
  });

  it('lets exactly one of two concurrent setups win', async () => {
    const { service } = build();
    const results = await Promise.allSettled([
      service.setup(setupInput, client),
      service.setup({ ...setupInput, username: 'other' }, client),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(failed.reason).toMatchObject({ code: 'setup_completed' });
  });
});

describe('login, refresh and logout', () => {
  let service: AuthService;
  let events: () => unknown[];
  let lines: Array<Record<string, unknown>>;
  beforeEach(async () => {
    ({ service, events, lines } = build());
    await service.setup(setupInput, client);
  });

  it('logs in with the right credentials, returning a refresh token of a new session', async () => {
    const refresh = await service.login('admin', PASSWORD, client);
    const claims = claimsOf(refresh.token);
    expect(claims).toMatchObject({ sub: 'admin', typ: 'refresh', role: 'admin' });
    expect(claims.sid).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const again = await service.login('admin', PASSWORD, client);
    expect(claimsOf(again.token).sid).not.toBe(claims.sid);
  });

  it('refuses a wrong password or unknown user alike, without logging the attempted name', async () => {
    for (const [user, password] of [
      ['admin', 'wrong wrong wrong wrong'],
      ['nobody-known', PASSWORD],
      ['Admin', PASSWORD],
    ]) {
      await expect(service.login(user as string, password as string, client)).rejects.toMatchObject(
        { code: 'invalid_credentials', message: 'wrong username or password' },
      );
    }
    expect(events()).toEqual([
      'setup.completed',
      'auth.login.failed',
      'auth.login.failed',
      'auth.login.failed',
    ]);
    expect(JSON.stringify(lines)).not.toContain('nobody-known');
  });

  it('rotates the refresh token and issues an access token of the same session', async () => {
    const first = await service.login('admin', PASSWORD, client);
    const result = await service.refresh(identityOf(first.token), client);
    expect(result.username).toBe('admin');
    const access = claimsOf(result.access.token);
    const next = claimsOf(result.refresh.token);
    expect(access).toMatchObject({ typ: 'access', sub: 'admin', sid: claimsOf(first.token).sid });
    expect(next.sid).toBe(claimsOf(first.token).sid);
    expect(next.jti).not.toBe(claimsOf(first.token).jti);
    // The rotated token is redeemable in turn.
    await expect(service.refresh(identityOf(result.refresh.token), client)).resolves.toBeTruthy();
  });

  it('treats a rotated-out token presented again as reuse: refused, audited, session revoked', async () => {
    const first = await service.login('admin', PASSWORD, client);
    const second = await service.refresh(identityOf(first.token), client);
    await expect(service.refresh(identityOf(first.token), client)).rejects.toMatchObject({
      code: 'invalid_refresh_token',
    });
    expect(events()).toContain('auth.refresh.reused');
    await expect(service.refresh(identityOf(second.refresh.token), client)).rejects.toMatchObject({
      code: 'invalid_refresh_token',
    });
  });

  it('refuses a token of an unknown session or another user', async () => {
    const first = await service.login('admin', PASSWORD, client);
    await expect(
      service.refresh({ ...identityOf(first.token), sid: 'no-such-session' }, client),
    ).rejects.toMatchObject({ code: 'invalid_refresh_token' });
    await expect(
      service.refresh({ ...identityOf(first.token), username: 'mallory' }, client),
    ).rejects.toMatchObject({ code: 'invalid_refresh_token' });
  });

  it('logout revokes each named session once and ignores unknown ones', async () => {
    const a = await service.login('admin', PASSWORD, client);
    const sid = claimsOf(a.token).sid;
    await service.logout([sid, sid, 'unknown'], client);
    await expect(service.refresh(identityOf(a.token), client)).rejects.toMatchObject({
      code: 'invalid_refresh_token',
    });
    const logouts = lines.filter((l) => l.event === 'auth.logout');
    expect(logouts.map((l) => [l.sid, l.revoked])).toEqual([
      [sid, true],
      ['unknown', false],
    ]);
  });
});

describe('refresh grace', () => {
  it('accepts the previous token within the grace period without rotating again', async () => {
    const { service } = build(60_000);
    await service.setup(setupInput, client);
    const first = await service.login('admin', PASSWORD, client);
    const a = await service.refresh(identityOf(first.token), client);
    const b = await service.refresh(identityOf(first.token), client);
    expect(claimsOf(b.refresh.token).jti).toBe(claimsOf(a.refresh.token).jti);
  });
});
