import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { createTestApp, type TestApp } from '../support/app.js';

describe('health endpoints', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({}, 'health');
  });
  afterAll(() => t.close());

  it('/healthz answers OK as text during setup', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toBe('OK');
  });

  it('/health and /ready answer 503 naming setup before an admin exists', async () => {
    const health = await t.app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(503);
    expect(health.json()).toMatchObject({ status: 'unhealthy', reason: 'setup_required' });
    const ready = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({
      ready: false,
      checks: { admin_setup: false, script_store: true, mcp_server: true },
      reason: 'admin_setup',
    });
  });

  it('reports healthy once an admin exists', async () => {
    await t.ctx.redis.hset(keys.adminUser(), { username: 'root' });
    const health = await t.app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ status: 'healthy', version: expect.any(String) });
    const ready = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(ready.json()).toEqual({
      ready: true,
      checks: { admin_setup: true, script_store: true, mcp_server: true },
    });
  });

  it('/metrics has the spec shape', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['executions', 'scripts', 'secrets', 'system']);
    expect(body.system.goroutines).toBeGreaterThanOrEqual(1);
    expect(body.executions).toEqual({ total: 0, success: 0, failed: 0, avg_duration_ms: 0 });
  });

  it('/metrics/prometheus serves text exposition', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics/prometheus' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/steward_scripts_total/);
  });

  it('/ready and /healthz answer 503 once stopping', async () => {
    t.ctx.lifecycle.markStopping();
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(503);
    const ready = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json().reason).toBe('shutting_down');
  });
});

describe('error rendering', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({}, 'errors');
  });
  afterAll(() => t.close());

  it('malformed JSON is 400 invalid_request and an oversized body is 413', async () => {
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/setup',
      headers: { 'content-type': 'application/json' },
      payload: '{"username": ',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      error: 'invalid_request',
      message: 'request body is not valid JSON',
    });
    const big = await t.app.inject({
      method: 'POST',
      url: '/api/setup',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ username: 'x'.repeat(1024 * 1024 + 10) }),
    });
    expect(big.statusCode).toBe(413);
    expect(big.json().error).toBe('payload_too_large');
  });

  it('unknown routes get 404 not_found with the security headers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/nothing-here' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      error: 'not_found',
      message: expect.stringContaining('/api/nothing-here'),
    });
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-xss-protection']).toBe('1; mode=block');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    expect(res.headers['content-security-policy']).toBeTruthy();
  });
});
