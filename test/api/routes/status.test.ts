import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { adminToken, authHeader } from '../../support/auth.js';

describe('GET /api/status', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(
      { 'chat.telegram': { token_secret: 'TELEGRAM_TOKEN', api_root: 'http://127.0.0.1:9' } },
      'status',
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  it('needs a bearer token', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/status' });
    expect(res.statusCode).toBe(401);
  });

  it('says whether the engine answers and which chat providers are configured', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/status',
      headers: authHeader(await adminToken(t)),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      engine: { status: 'unavailable' },
      chat: { providers: ['telegram'], session_scope: 'active' },
    });
  });
});
