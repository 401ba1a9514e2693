import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { adminToken, authHeader } from '../../support/auth.js';
import { createRedis } from '../../../src/store/redis.js';
import { testRedisUrl } from '../../support/redis.js';

const wrong = { username: 'admin', password: 'not the password at all' };

function expectLimitHeaders(headers: Record<string, unknown>, limit: number, remaining: number) {
  expect(headers['x-ratelimit-limit']).toBe(String(limit));
  expect(headers['x-ratelimit-remaining']).toBe(String(remaining));
  const reset = Number(headers['x-ratelimit-reset']);
  const now = Date.now() / 1000;
  expect(String(reset)).toMatch(/^\d+$/);
  expect(reset).toBeGreaterThanOrEqual(Math.floor(now));
  expect(reset).toBeLessThanOrEqual(Math.ceil(now) + 61);
}

describe('login limit across two API processes', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await createTestApp({}, 'rl-login');
    b = await createTestApp({}, 'rl-login', { prefix: a.prefix, dir: a.dir });
    await adminToken(a); // one login of this IP (127.0.0.1)
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('answers the 6th attempt within a minute with 429 rate_limited, whichever process', async () => {
    const ip = '203.0.113.7';
    const attempt = (t: TestApp) =>
      t.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: ip, payload: wrong });
    const results = [];
    for (const t of [a, b, a, b, a, b]) results.push(await attempt(t));
    results.slice(0, 5).forEach((res, i) => {
      expect(res.statusCode).toBe(401);
      expectLimitHeaders(res.headers, 5, 4 - i);
      expect(res.headers['retry-after']).toBeUndefined();
    });
    const limited = results[5]!;
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ error: 'rate_limited', message: expect.any(String) });
    expectLimitHeaders(limited.headers, 5, 0);
    const retry = Number(limited.headers['retry-after']);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    // Even the right password is refused now; another client IP is not affected.
    const right = await a.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: ip,
      payload: { username: 'admin', password: 'correct horse battery staple' },
    });
    expect(right.statusCode).toBe(429);
    const elsewhere = await b.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: '203.0.113.8',
      payload: wrong,
    });
    expect(elsewhere.statusCode).toBe(401);
  });

  it('ignores X-Forwarded-For unless server.trust_proxy is set', async () => {
    const ip = '198.51.100.1';
    for (let i = 0; i < 5; i++) {
      await a.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: ip,
        headers: { 'x-forwarded-for': `192.0.2.${i}` },
        payload: wrong,
      });
    }
    const res = await a.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: ip,
      headers: { 'x-forwarded-for': '192.0.2.99' },
      payload: wrong,
    });
    expect(res.statusCode).toBe(429);
  });

  it('keeps its counters under the deployment prefix exactly once', async () => {
    const raw = createRedis({ url: testRedisUrl(), prefix: '' }, 'bullmq');
    try {
      const found = await raw.keys(`*ratelimit:login:ip:203.0.113.7`);
      expect(found).toEqual([`${a.prefix}ratelimit:login:ip:203.0.113.7`]);
    } finally {
      raw.disconnect();
    }
  });
});

describe('administration limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ 'admin.rate_limit.api_per_minute': 4 }, 'rl-api');
  });
  afterAll(() => t.close());

  it('counts per authenticated user, across client addresses, with headers', async () => {
    const token = await adminToken(t); // uses /api/setup and /api/session from 127.0.0.1
    const me = (ip: string) =>
      t.app.inject({
        method: 'GET',
        url: '/api/auth/me',
        remoteAddress: ip,
        headers: authHeader(token),
      });
    const statuses = [];
    for (const [i, ip] of ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'].entries()) {
      const res = await me(ip);
      statuses.push(res.statusCode);
      expectLimitHeaders(res.headers, 4, 3 - i);
    }
    expect(statuses).toEqual([200, 200, 200, 200]);
    const limited = await me('10.0.0.5');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('counts setup and session endpoints per client IP', async () => {
    const status = (ip: string) =>
      t.app.inject({ method: 'GET', url: '/api/setup/status', remoteAddress: ip });
    for (let i = 0; i < 4; i++) expectLimitHeaders((await status('10.1.0.1')).headers, 4, 3 - i);
    expect((await status('10.1.0.1')).statusCode).toBe(429);
    expect((await status('10.1.0.2')).statusCode).toBe(200);
    const noCookie = await t.app.inject({
      method: 'GET',
      url: '/api/session',
      remoteAddress: '10.1.0.3',
    });
    expect(noCookie.statusCode).toBe(401);
    expectLimitHeaders(noCookie.headers, 4, 3);
  });

  it('does not limit the health endpoints', async () => {
    for (let i = 0; i < 6; i++) {
      for (const url of ['/healthz', '/health', '/ready', '/metrics']) {
        const res = await t.app.inject({ method: 'GET', url, remoteAddress: '10.2.0.1' });
        expect(res.statusCode).not.toBe(429);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
    }
  });
});

describe('a protected request that fails before its handler', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ 'admin.rate_limit.api_per_minute': 3 }, 'rl-bad');
  });
  afterAll(() => t.close());

  // The count runs while the body is parsed and validated: the answer still waits for it.
  it('counts with the headers, then answers 429 rather than its own 400, and creates nothing', async () => {
    const token = await adminToken(t);
    const send = (payload: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/scripts',
        remoteAddress: '10.3.0.1',
        headers: { ...authHeader(token), 'content-type': 'application/json' },
        payload,
      });
    const bad = ['{"name": ', JSON.stringify({ name: 'x.star' }), JSON.stringify({ source: 1 })];
    for (const [i, payload] of bad.entries()) {
      const res = await send(payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('invalid_request');
      expectLimitHeaders(res.headers, 3, 2 - i);
    }
    for (const payload of ['{"name": ', JSON.stringify({ name: 'ok.star', source: 'x = 1\n' })]) {
      const limited = await send(payload);
      expect(limited.statusCode).toBe(429);
      expect(limited.json().error).toBe('rate_limited');
      expectLimitHeaders(limited.headers, 3, 0);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect(await t.services.scriptRunner.check('ok.star')).toMatchObject({ refusal: 'not_found' });
  });
});

describe('behind a trusted proxy', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ 'server.trust_proxy': true }, 'rl-proxy');
  });
  afterAll(() => t.close());

  it('counts logins per X-Forwarded-For client', async () => {
    const attempt = (client: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: '10.9.9.9',
        headers: { 'x-forwarded-for': client },
        payload: wrong,
      });
    for (let i = 0; i < 5; i++) expect((await attempt('192.0.2.10')).statusCode).toBe(401);
    expect((await attempt('192.0.2.10')).statusCode).toBe(429);
    expect((await attempt('192.0.2.11')).statusCode).toBe(401);
  });
});

describe('the 60/min limit on requests no guard or route lets through', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ 'admin.rate_limit.api_per_minute': 4 }, 'rl-refused');
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts 401s and unknown /api paths per client IP, with the headers, then answers 429', async () => {
    const from = (remoteAddress: string, url: string) =>
      t.app.inject({ method: 'GET', url, remoteAddress });
    const first = await from('10.1.1.1', '/api/scripts');
    expect(first.statusCode).toBe(401);
    expectLimitHeaders(first.headers, 4, 3);
    const unknown = await from('10.1.1.1', '/api/no-such-thing');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({
      error: 'not_found',
      message: 'no route for GET /api/no-such-thing',
    });
    expectLimitHeaders(unknown.headers, 4, 2);
    await from('10.1.1.1', '/api/secrets');
    await from('10.1.1.1', '/api/schedules');
    const over = await from('10.1.1.1', '/api/scripts');
    expect(over.statusCode).toBe(429);
    expect(over.json()).toMatchObject({ error: 'rate_limited' });
    expect(over.headers['retry-after']).toMatch(/^\d+$/);
    // Another client is counted apart.
    expect((await from('10.1.1.2', '/api/scripts')).statusCode).toBe(401);
    // Outside /api, unknown paths are not the API's to count.
    expect((await from('10.1.1.1', '/nothing')).headers['x-ratelimit-limit']).toBeUndefined();
  });
});
