import { setTimeout as sleep } from 'node:timers/promises';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { adminToken, authHeader, TEST_ADMIN } from '../../support/auth.js';
import { badTokens } from '../../auth/bad-tokens.js';

const SECRET = 's'.repeat(64);
const JWT = /[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/.source;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp(
    {
      'admin.jwt.secret': SECRET,
      'admin.jwt.refresh_grace': 1500,
      // Many logins below; the login limit has its own tests.
      'admin.rate_limit.login_per_minute': 1000,
      'admin.rate_limit.api_per_minute': 1000,
    },
    'auth',
  );
  await adminToken(t);
});
afterAll(() => t.close());

const login = (
  host = 'localhost',
  password = TEST_ADMIN.password,
  username = TEST_ADMIN.username,
) =>
  t.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    headers: { host },
    payload: { username, password },
  });
const refreshOf = (res: { cookies: Array<{ name: string; value: string }> }) => {
  const cookie = res.cookies.find((c) => c.name === 'refresh');
  if (!cookie) throw new Error('no refresh cookie');
  return cookie.value;
};
const session = (refresh?: string, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'GET',
    url: '/api/session',
    headers,
    ...(refresh === undefined ? {} : { cookies: { refresh } }),
  });
const jtiOf = (token: string) => (jwt.decode(token) as { jti: string }).jti;

describe('login', () => {
  it('sets the refresh cookie with exactly the spec attributes, Secure off localhost', async () => {
    const res = await login('steward.example');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: expect.any(String) });
    expect(res.headers['set-cookie']).toMatch(
      new RegExp(
        `^refresh=${JWT}; Max-Age=259200; Path=/api/session; HttpOnly; Secure; SameSite=Strict$`,
      ),
    );
  });

  it.each(['localhost', 'localhost:8080', '127.0.0.1', '127.0.0.1:8080', '[::1]', '[::1]:8080'])(
    'drops Secure for Host %s',
    async (host) => {
      const res = await login(host);
      expect(res.statusCode).toBe(200);
      expect(res.headers['set-cookie']).toMatch(
        new RegExp(
          `^refresh=${JWT}; Max-Age=259200; Path=/api/session; HttpOnly; SameSite=Strict$`,
        ),
      );
    },
  );

  it('keeps Secure for hosts that merely look local', async () => {
    for (const host of ['localhost.example', '127.0.0.1.nip.io:443']) {
      expect((await login(host)).headers['set-cookie']).toMatch(/; Secure;/);
    }
  });

  it('answers 401 invalid_credentials for a wrong password or unknown user, without a cookie', async () => {
    for (const res of [
      await login('localhost', 'wrong password!!'),
      await login('localhost', TEST_ADMIN.password, 'root'),
    ]) {
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'invalid_credentials', message: expect.any(String) });
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });
});

describe('session and me', () => {
  it('exchanges the refresh cookie for an access token that authorizes /api/auth/me', async () => {
    const before = Date.now();
    const res = await session(refreshOf(await login()));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      access_token: expect.stringMatching(new RegExp(`^${JWT}$`)),
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      username: 'admin',
    });
    const ttl = Date.parse(body.expires_at) - before;
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000 + 1000);
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: authHeader(body.access_token),
    });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toEqual({ username: 'admin', role: 'admin' });
  });

  it('answers 401 no_refresh_token without the cookie, even with a valid bearer', async () => {
    const bearer = authHeader(await adminToken(t));
    for (const res of [await session(), await session(undefined, bearer)]) {
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'no_refresh_token', message: expect.any(String) });
    }
  });

  it('answers 401 invalid_refresh_token for bad refresh cookies, including access tokens', async () => {
    const bad = badTokens(SECRET, 'steward', t.services.tokens);
    for (const [name, token] of Object.entries(bad.asRefresh)) {
      const res = await session(token);
      expect(res.statusCode, name).toBe(401);
      expect(res.json().error, name).toBe('invalid_refresh_token');
    }
  });
});

describe('bearer guard', () => {
  const me = (headers: Record<string, string>) =>
    t.app.inject({ method: 'GET', url: '/api/auth/me', headers });
  /** The outcome of opening the chat socket with `?token=`: the upgrade error, or `open`. */
  const chatUpgrade = (token: string) =>
    t.app.injectWS(`/api/sessions/ses_none/chat?token=${encodeURIComponent(token)}`).then(
      (ws) => {
        ws.terminate();
        return 'open';
      },
      (err: Error) => err.message,
    );

  it('refuses missing and malformed Authorization headers with 401 unauthorized', async () => {
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer' },
      { authorization: 'Bearer ' },
      { authorization: 'Basic YWRtaW46YWRtaW4=' },
      { authorization: 'Bearer a b' },
    ];
    for (const headers of cases) {
      const res = await me(headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      expect(res.json()).toEqual({ error: 'unauthorized', message: expect.any(String) });
    }
  });

  it('refuses tampered, foreign, expired and wrong-type tokens, on the chat WebSocket too', async () => {
    const bad = badTokens(SECRET, 'steward', t.services.tokens);
    for (const [name, token] of Object.entries(bad.asAccess)) {
      const res = await me(authHeader(token));
      expect(res.statusCode, name).toBe(401);
      expect(res.json().error, name).toBe('unauthorized');
      // A refresh token or another issuer's token must not open the chat socket either.
      expect(await chatUpgrade(token), name).toMatch(/401/);
    }
  });

  it('lets a valid access token past the chat WebSocket token check', async () => {
    const token = await adminToken(t);
    // The session does not exist (or the engine is not running): anything but 401.
    expect(await chatUpgrade(token)).not.toMatch(/401/);
  });

  it('binds an access token to its login session: no session, or a longer life, is refused', async () => {
    // Validly signed, but for a session that never existed.
    const { token } = t.services.tokens.signAccess({ username: 'admin', role: 'admin', sid: 'x' });
    expect((await me(authHeader(token))).statusCode).toBe(401);
    expect(await chatUpgrade(token)).toMatch(/401/);

    const live = (await session(refreshOf(await login()))).json().access_token as string;
    const claims = jwt.decode(live) as Record<string, unknown>;
    expect((await me(authHeader(live))).statusCode).toBe(200);
    // The same session and user, signed with the real secret, but living an hour.
    const longer = jwt.sign({ ...claims, exp: (claims.iat as number) + 3600 }, SECRET, {
      algorithm: 'HS256',
    });
    expect((await me(authHeader(longer))).statusCode).toBe(401);
  });

  it('ends an access token within seconds of its session being logged out', async () => {
    const res = await session(refreshOf(await login()));
    const access = res.json().access_token as string;
    expect((await me(authHeader(access))).statusCode).toBe(200);
    const out = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: authHeader(access),
    });
    expect(out.statusCode).toBe(204);
    // The liveness check is cached for 2 s; a 15-minute token used to outlive the logout.
    await new Promise((r) => setTimeout(r, 2_100));
    expect((await me(authHeader(access))).statusCode).toBe(401);
    expect(await chatUpgrade(access)).toMatch(/401/);
  });
});

describe('refresh rotation', () => {
  it('rotates on each use, honours the old token during the grace, then revokes the family', async () => {
    const r0 = refreshOf(await login());
    const first = await session(r0);
    expect(first.statusCode).toBe(200);
    const r1 = refreshOf(first);
    expect(jtiOf(r1)).not.toBe(jtiOf(r0));

    // A parallel tab presenting r0 within the grace gets the current token id, not a new one.
    const parallel = await session(r0);
    expect(parallel.statusCode).toBe(200);
    expect(jtiOf(refreshOf(parallel))).toBe(jtiOf(r1));

    await sleep(1700);
    const replay = await session(r0);
    expect(replay.statusCode).toBe(401);
    expect(replay.json().error).toBe('invalid_refresh_token');
    // Reuse after the grace revoked the whole session: the current token is dead too.
    expect((await session(r1)).json().error).toBe('invalid_refresh_token');
  });

  it('keeps a session alive through successive rotations', async () => {
    let refresh = refreshOf(await login());
    for (let i = 0; i < 4; i++) {
      const res = await session(refresh);
      expect(res.statusCode).toBe(200);
      refresh = refreshOf(res);
    }
    expect((await session(refresh)).statusCode).toBe(200);
  });
});

describe('logout', () => {
  it('answers 204 expiring the cookie, and revokes the refresh token sent with it', async () => {
    const refresh = refreshOf(await login());
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { host: 'steward.example' },
      cookies: { refresh },
    });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(res.headers['set-cookie']).toBe(
      'refresh=; Max-Age=-1; Path=/api/session; HttpOnly; Secure; SameSite=Strict',
    );
    const again = await session(refresh);
    expect(again.statusCode).toBe(401);
    expect(again.json().error).toBe('invalid_refresh_token');
  });

  it('revokes the session of the bearer token (browsers do not send the cookie here)', async () => {
    const first = await session(refreshOf(await login()));
    const saved = refreshOf(first);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: authHeader(first.json().access_token),
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['set-cookie']).toBe(
      'refresh=; Max-Age=-1; Path=/api/session; HttpOnly; SameSite=Strict',
    );
    expect((await session(saved)).json().error).toBe('invalid_refresh_token');
  });

  it('answers 204 with no credentials or bad ones, and leaves other sessions alone', async () => {
    const other = refreshOf(await login());
    for (const extra of [
      {},
      { headers: { authorization: 'Bearer nonsense' } },
      { cookies: { refresh: 'x' } },
    ]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/auth/logout', ...extra });
      expect(res.statusCode).toBe(204);
    }
    expect((await session(other)).statusCode).toBe(200);
  });
});
