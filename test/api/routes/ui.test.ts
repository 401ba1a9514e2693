import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UI_DIR, uiContentSecurityPolicy } from '../../../src/api/routes/ui.js';
import { securityHeaders } from '../../../src/api/plugins/security-headers.js';
import { createTestApp, type TestApp } from '../../support/app.js';

/** The JavaScript a first visit loads before any screen: the entry and its modulepreloads. */
function initialScripts(html: string): string[] {
  const urls = [
    ...html.matchAll(/<script[^>]+type="module"[^>]+src="([^"]+)"/g),
    ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g),
  ].map((m) => m[1]!);
  return [...new Set(urls)];
}

describe('the web UI at /', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({}, 'ui');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves index.html with a fresh nonce in its own Content-Security-Policy', async () => {
    const [a, b] = await Promise.all([
      t.app.inject({ method: 'GET', url: '/' }),
      t.app.inject({ method: 'GET', url: '/' }),
    ]);
    expect(a.statusCode).toBe(200);
    expect(a.headers['content-type']).toMatch(/^text\/html/);
    expect(a.headers['cache-control']).toBe('no-cache');
    const csp = String(a.headers['content-security-policy']);
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toBe(uiContentSecurityPolicy(nonce));
    expect(csp).not.toMatch(/unsafe-eval|unsafe-inline/);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(a.body).toContain(`nonce="${nonce}"`);
    expect(a.body).not.toContain('STEWARD_CSP_NONCE');
    // Each response its own nonce.
    expect(b.headers['content-security-policy']).not.toBe(csp);
    // The other protective headers stay.
    expect(a.headers['x-frame-options']).toBe('DENY');
    expect(a.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers index.html for the client routes (a reload or a pasted link)', async () => {
    for (const url of [
      '/login',
      '/setup',
      '/scripts',
      '/scripts/a.star/review',
      '/schedules/new',
      '/sessions/ses_1',
      '/chat',
      '/activity',
      '/secrets',
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toContain('<div id="root">');
    }
  });

  it("answers an unknown page with the UI's not-found screen; the API keeps JSON 404s and its own headers", async () => {
    for (const url of ['/no-such-page', '/scriptsx', '/a/b/c?x=1', '/apix']) {
      const missing = await t.app.inject({ method: 'GET', url });
      expect(missing.statusCode, url).toBe(404);
      expect(missing.headers['content-type'], url).toMatch(/^text\/html/);
      expect(missing.body, url).toContain('<div id="root">');
      expect(String(missing.headers['content-security-policy']), url).toContain(
        "script-src 'self'",
      );
    }
    for (const url of ['/api/nothing', '/api/scripts/a.star/nothing', '/api/', '/api']) {
      const missing = await t.app.inject({ method: 'GET', url });
      expect(missing.statusCode, url).toBe(404);
      expect(missing.json(), url).toMatchObject({ error: 'not_found' });
    }
    const posted = await t.app.inject({ method: 'POST', url: '/no-such-page' });
    expect(posted.statusCode).toBe(404);
    expect(posted.json()).toMatchObject({ error: 'not_found' });
    const asset = await t.app.inject({ method: 'GET', url: '/assets/nope.js' });
    expect(asset.statusCode).toBe(404);
    expect(asset.json()).toMatchObject({ error: 'not_found' });
    const api = await t.app.inject({ method: 'GET', url: '/api/setup/status' });
    expect(api.statusCode).toBe(200);
    expect(api.headers['content-security-policy']).toBe(securityHeaders['content-security-policy']);
    const apiMissing = await t.app.inject({ method: 'GET', url: '/api/nothing' });
    expect(apiMissing.statusCode).toBe(404);
    expect(apiMissing.headers['content-security-policy']).toBe(
      securityHeaders['content-security-policy'],
    );
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.headers['content-security-policy']).toBe(
      securityHeaders['content-security-policy'],
    );
  });

  it('serves hashed assets immutable for a year, pre-compressed', async () => {
    const html = (await t.app.inject({ method: 'GET', url: '/' })).body;
    const [entry] = initialScripts(html);
    expect(entry).toMatch(/^\/assets\/index-[\w-]+\.js$/);
    const res = await t.app.inject({
      method: 'GET',
      url: entry!,
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['content-encoding']).toBe('gzip');
    const missing = await t.app.inject({ method: 'GET', url: '/assets/nope-123.js' });
    expect(missing.statusCode).toBe(404);
  });

  it('keeps the initial JavaScript within 250 KB gzipped', () => {
    const html = readFileSync(path.join(UI_DIR, 'index.html'), 'utf8');
    const scripts = initialScripts(html);
    expect(scripts.length).toBeGreaterThan(0);
    const total = scripts
      .map((url) => gzipSync(readFileSync(path.join(UI_DIR, url))).length)
      .reduce((a, b) => a + b, 0);
    // Printed for the README's figure.
    console.log(`initial JS: ${scripts.length} files, ${(total / 1024).toFixed(1)} KiB gzipped`);
    expect(total).toBeLessThanOrEqual(250 * 1024);
  });
});

describe('ui.enabled: false', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ 'ui.enabled': false }, 'ui-off');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves no UI, only the API', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(404);
    const assets = await t.app.inject({ method: 'GET', url: '/assets/index.js' });
    expect(assets.statusCode).toBe(404);
  });
});
