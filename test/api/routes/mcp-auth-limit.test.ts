import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';

const TOKEN = 'mcp-token-0123456789abcdef0123456789';
const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

/**
 * A guesser at `POST /mcp` meets the same per-IP limit as one at `/api`: wrong bearer tokens count
 * against the client's address, on the shared Redis counter.
 */
describe('wrong /mcp bearer tokens', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(
      { 'mcp.http.enabled': true, 'mcp.http.token': TOKEN, 'admin.rate_limit.api_per_minute': 60 },
      'mcp-auth-limit',
    );
  });
  afterAll(() => t.close());

  const post = (authorization: string, remoteAddress: string) =>
    t.app.inject({
      method: 'POST',
      url: '/mcp',
      remoteAddress,
      headers: {
        host: 'localhost',
        authorization,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      payload: ping,
    });

  it('are limited per client IP: 80 guesses meet 429, other clients and the right token do not', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 80; i++) {
      codes.push(
        (await post(`Bearer guess-${i}-0123456789abcdef0123456789`, '198.51.100.20')).statusCode,
      );
    }
    expect(codes.slice(0, 60).every((c) => c === 401)).toBe(true);
    expect(codes.slice(60).every((c) => c === 429)).toBe(true);
    const limited = await post('Bearer still-guessing-0123456789abcdef', '198.51.100.20');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ error: 'rate_limited', message: expect.any(String) });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // A token-less request counts too.
    expect((await post('', '198.51.100.20')).statusCode).toBe(429);

    // Another client is not held back by this one's guesses.
    expect(
      (await post('Bearer wrong-0123456789abcdef0123456789', '198.51.100.21')).statusCode,
    ).toBe(401);
    // As at /api, the rightful holder is not locked out by someone sharing its address.
    expect((await post(`Bearer ${TOKEN}`, '198.51.100.20')).statusCode).toBe(200);
  });

  it('share the per-IP counter with /api', async () => {
    for (let i = 0; i < 60; i++)
      await post('Bearer nope-0123456789abcdef0123456789', '198.51.100.30');
    const api = await t.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      remoteAddress: '198.51.100.30',
    });
    expect(api.statusCode).toBe(429);
  });
});
