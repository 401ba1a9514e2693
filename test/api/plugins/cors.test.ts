import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';

const corsHeaders = (headers: Record<string, unknown>) =>
  Object.keys(headers).filter((h) => h.startsWith('access-control-'));

describe('CORS with an allowed origin', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ 'admin.cors.allowed_origins': ['https://app.example/'] }, 'cors');
  });
  afterAll(() => t.close());

  it('answers an allowed origin with credentials', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/setup/status',
      headers: { origin: 'https://app.example' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(res.headers.vary).toMatch(/Origin/);
  });

  it('answers the preflight of an allowed origin', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/auth/me',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(res.headers['access-control-allow-methods']).toMatch(/POST/);
    expect(res.headers['access-control-allow-headers']).toMatch(/Authorization/);
  });

  it('sends no CORS headers to another origin, nor answers its preflight', async () => {
    const get = await t.app.inject({
      method: 'GET',
      url: '/api/setup/status',
      headers: { origin: 'https://evil.example' },
    });
    expect(get.statusCode).toBe(200);
    expect(corsHeaders(get.headers)).toEqual([]);
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/auth/me',
      headers: { origin: 'https://app.example.evil', 'access-control-request-method': 'GET' },
    });
    expect(preflight.statusCode).not.toBe(204);
    expect(corsHeaders(preflight.headers)).toEqual([]);
  });
});

describe('CORS by default', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({}, 'cors-default');
  });
  afterAll(() => t.close());

  it('is same-origin only: no CORS headers for any origin', async () => {
    for (const origin of ['https://app.example', 'http://localhost:3000']) {
      const res = await t.app.inject({
        method: 'OPTIONS',
        url: '/api/auth/login',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expect(corsHeaders(res.headers)).toEqual([]);
    }
    const same = await t.app.inject({ method: 'GET', url: '/health' });
    expect(corsHeaders(same.headers)).toEqual([]);
  });
});
