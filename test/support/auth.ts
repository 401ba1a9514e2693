import type { TestApp } from './app.js';

export const TEST_ADMIN = { username: 'admin', password: 'correct horse battery staple' };

const cached = new WeakMap<TestApp, string>();

/**
 * A bearer access token for `t`: completes setup when needed, logs in and exchanges the refresh
 * cookie. Cached per app, since login is limited to a few attempts per minute.
 */
export async function adminToken(t: TestApp): Promise<string> {
  const known = cached.get(t);
  if (known) return known;
  if (await t.services.auth.setupRequired()) {
    const setup = await t.app.inject({
      method: 'POST',
      url: '/api/setup',
      payload: { ...TEST_ADMIN, confirm_password: TEST_ADMIN.password },
    });
    if (setup.statusCode !== 200 && setup.statusCode !== 403) {
      throw new Error(`setup failed: ${setup.statusCode} ${setup.body}`);
    }
  }
  const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: TEST_ADMIN });
  if (login.statusCode !== 200) throw new Error(`login failed: ${login.statusCode} ${login.body}`);
  const refresh = login.cookies.find((c) => c.name === 'refresh');
  if (!refresh) throw new Error('login set no refresh cookie');
  const session = await t.app.inject({
    method: 'GET',
    url: '/api/session',
    cookies: { refresh: refresh.value },
  });
  if (session.statusCode !== 200) {
    throw new Error(`session failed: ${session.statusCode} ${session.body}`);
  }
  const token = (session.json() as { access_token: string }).access_token;
  cached.set(t, token);
  return token;
}

export function authHeader(token: string): { authorization: string } {
  return { authorization: `Bearer ${token}` };
}

export interface BearerRequest {
  method: string;
  url: string;
  payload?: object | string;
  headers?: Record<string, string>;
}

/**
 * `app.inject` with a bearer token; getters, since tests assign the app and the token in
 * `beforeAll`, after this is made.
 */
export function bearerInject(app: () => TestApp, token: () => string) {
  return (opts: BearerRequest) =>
    app().app.inject({
      method: opts.method as 'GET',
      url: opts.url,
      ...(opts.payload !== undefined ? { payload: opts.payload } : {}),
      headers: { authorization: `Bearer ${token()}`, ...opts.headers },
    });
}
