import { existsSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../../src/store/keys.js';
import { createTestApp, type TestApp } from '../../support/app.js';

const good = 'correct horse battery staple';
const body = (password: string, confirm = password, username = 'admin') => ({
  username,
  password,
  confirm_password: confirm,
});

describe('setup', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({}, 'setup');
  });
  afterAll(() => t.close());

  const post = (payload: Record<string, string>) =>
    t.app.inject({ method: 'POST', url: '/api/setup', payload });

  it('reports setup required before an admin exists', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/setup/status' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ setup_required: true });
  });

  it('refuses a password breaking the rule with password_invalid naming the rule', async () => {
    const short = await post(body('Short1!'));
    expect(short.statusCode).toBe(400);
    expect(short.json()).toEqual({
      error: 'password_invalid',
      message: expect.stringMatching(/at least 16 characters, or at least 12/),
    });
    const twoCategories = await post(body('abcdefghijk12'));
    expect(twoCategories.json()).toMatchObject({
      error: 'password_invalid',
      message: expect.stringMatching(/3 of the 4 categories.*missing: uppercase, symbol/),
    });
  });

  it('counts multi-byte characters as characters', async () => {
    // 8 emoji are 32 bytes but 8 characters: too short.
    const emoji = await post(body('🔐'.repeat(8)));
    expect(emoji.json()).toMatchObject({ error: 'password_invalid' });
    expect(emoji.json().message).toMatch(/it has 8 characters/);
  });

  it('refuses differing passwords with password_mismatch', async () => {
    const res = await post(body(good, `${good}!`));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'password_mismatch',
      message: 'password and confirm_password differ',
    });
  });

  it('refuses bad usernames and missing fields with invalid_request', async () => {
    expect((await post(body(good, good, ''))).json()).toMatchObject({ error: 'invalid_request' });
    expect((await post(body(good, good, 'bad\u0007name'))).json()).toMatchObject({
      error: 'invalid_request',
      message: expect.stringMatching(/control/),
    });
    const missing = await post({ username: 'admin', password: good });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toBe('invalid_request');
    expect(await t.ctx.redis.exists(keys.adminUser())).toBe(0);
  });

  it('creates the admin with an argon2id hash, then answers 403 setup_completed', async () => {
    const res = await post(body('ÄÖÜäöüßéèê€€'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, message: expect.any(String) });
    const stored = await t.ctx.redis.hgetall(keys.adminUser());
    expect(stored.username).toBe('admin');
    expect(stored.password_hash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(stored)).not.toContain('ÄÖÜ');

    const again = await post(body(good, good, 'other'));
    expect(again.statusCode).toBe(403);
    expect(again.json()).toEqual({ error: 'setup_completed', message: expect.any(String) });
    expect((await t.app.inject({ method: 'GET', url: '/api/setup/status' })).json()).toEqual({
      setup_required: false,
    });
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });
});

describe('setup race across two API processes', () => {
  const apps: TestApp[] = [];
  afterEach(async () => {
    // The second shares the first's deployment; close it first, the owner drops the keys.
    for (const a of apps.reverse()) await a.close();
    apps.length = 0;
  });

  it('creates exactly one admin when two processes receive setup at once', async () => {
    const a = await createTestApp({}, 'race');
    apps.push(a);
    const b = await createTestApp({}, 'race', { prefix: a.prefix, dir: a.dir });
    apps.push(b);
    const attempts = await Promise.all(
      [a, b, a, b, a, b].map((x, i) =>
        x.app.inject({
          method: 'POST',
          url: '/api/setup',
          payload: body(good, good, `admin${i}`),
        }),
      ),
    );
    const codes = attempts.map((r) => r.statusCode).sort();
    expect(codes).toEqual([200, 403, 403, 403, 403, 403]);
    const winner = attempts.findIndex((r) => r.statusCode === 200);
    expect(await a.ctx.redis.hget(keys.adminUser(), 'username')).toBe(`admin${winner}`);
  });
});

describe('setup from another machine', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({}, 'setup-net');
  });
  afterAll(() => t.close());

  const post = (headers: Record<string, string>, remoteAddress = '203.0.113.9') =>
    t.app.inject({
      method: 'POST',
      url: '/api/setup',
      payload: body(good),
      headers,
      remoteAddress,
    });

  it('needs the one-time token from the setup_token file, which is gone afterwards', async () => {
    const token = await t.services.setupToken.ensure();
    const missing = await post({});
    expect(missing.statusCode).toBe(403);
    expect(missing.json()).toEqual({
      error: 'forbidden',
      message: expect.stringContaining(path.join(t.dir, 'data', 'setup_token')),
    });
    expect(missing.json().message).toContain('X-Setup-Token');
    expect((await post({ 'x-setup-token': `${token}x` })).statusCode).toBe(403);
    // A proxy on this machine does not make its clients local.
    const proxied = await post({ 'x-forwarded-for': '203.0.113.9' }, '127.0.0.1');
    expect(proxied.statusCode).toBe(403);
    expect(await t.ctx.redis.exists(keys.adminUser())).toBe(0);

    const ok = await post({ 'x-setup-token': token });
    expect(ok.statusCode).toBe(200);
    expect(existsSync(t.services.setupToken.file)).toBe(false);
    // After setup everyone gets the spec's answer, token or not.
    expect((await post({ 'x-setup-token': token })).json().error).toBe('setup_completed');
  });
});

describe('setup through a rebound name or a local relay', () => {
  let t: TestApp;
  let relay: net.Server;
  let apiPort: number;
  let relayPort: number;
  beforeAll(async () => {
    t = await createTestApp({}, 'setup-relay');
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    apiPort = (t.app.server.address() as AddressInfo).port;
    // socat-style: bytes from 127.0.0.1 passed on as they are, no X-Forwarded-For added.
    relay = net.createServer((client) => {
      const upstream = net.connect(apiPort, '127.0.0.1');
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    relayPort = (relay.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => relay.close(resolve));
    await t.close();
  });

  /** A real HTTP request over a loopback socket, with the Host and headers given. */
  const post = (port: number, headers: Record<string, string>) =>
    new Promise<{ status: number; body: { error?: string } }>((resolve, reject) => {
      const payload = JSON.stringify(body(good));
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/setup',
          headers: { 'content-type': 'application/json', ...headers },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as { error?: string } }),
          );
        },
      );
      req.on('error', reject);
      req.end(payload);
    });

  it('wants the token for a foreign Host or Origin on a loopback socket, and through a relay', async () => {
    const token = await t.services.setupToken.ensure();
    // A page on a name rebound to 127.0.0.1: its Host and Origin are the attacker's.
    const rebound = await post(apiPort, {
      host: `steward.attacker.example:${apiPort}`,
      origin: `http://steward.attacker.example:${apiPort}`,
    });
    expect(rebound).toEqual({ status: 403, body: expect.objectContaining({ error: 'forbidden' }) });
    // A loopback Host does not excuse a foreign page's Origin.
    const foreignOrigin = await post(apiPort, {
      host: `127.0.0.1:${apiPort}`,
      origin: 'https://evil.example',
    });
    expect(foreignOrigin.status).toBe(403);
    // A relay on this machine (socat, nginx proxy_pass without X-Forwarded-For) for a client
    // elsewhere, who calls Steward by its public name.
    const relayed = await post(relayPort, { host: 'steward.example.org' });
    expect(relayed.status).toBe(403);
    expect(await t.ctx.redis.exists(keys.adminUser())).toBe(0);

    // With the token, the same relayed request creates the admin.
    const ok = await post(relayPort, { host: 'steward.example.org', 'x-setup-token': token });
    expect(ok.status).toBe(200);
    expect(await t.ctx.redis.exists(keys.adminUser())).toBe(1);
  });

  it('needs no token from this machine calling it by a loopback name', async () => {
    const local = await createTestApp({}, 'setup-local');
    try {
      await local.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (local.app.server.address() as AddressInfo).port;
      const res = await post(port, {
        host: `localhost:${port}`,
        origin: `http://localhost:${port}`,
      });
      expect(res.status).toBe(200);
    } finally {
      await local.close();
    }
  });
});
