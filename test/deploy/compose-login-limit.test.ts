import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/load.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { TEST_ADMIN } from '../support/auth.js';

/**
 * The login limit (5 a minute per client) under the forwarding trust docker-compose.yml gives
 * the API, against a client that makes up X-Forwarded-For: through the proxy (which may pass the
 * made-up value on in front of the real one) and from the engine's network, which reaches the
 * API directly. No Docker here: the API is built with the compose file's own STEWARD_TRUST_PROXY.
 */
const root = path.resolve(__dirname, '../..');
const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), {
  merge: true,
}) as { services: Record<string, any>; networks: Record<string, any> };
const trustProxy = loadConfig({
  cwd: root,
  env: { STEWARD_TRUST_PROXY: compose.services.api.environment.STEWARD_TRUST_PROXY },
}).server.trust_proxy;
const edgeSubnet = compose.networks.edge.ipam.config[0].subnet as string;
/** An address Docker could give the proxy on the edge network. */
const proxyAddress = edgeSubnet.replace(/\.0\/\d+$/, '.3');

describe("the login limit under docker-compose.yml's forwarding trust", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(
      { 'server.trust_proxy': trustProxy, 'admin.rate_limit.login_per_minute': 5 },
      'compose-login',
    );
    await t.services.auth.setup(
      { ...TEST_ADMIN, confirm_password: TEST_ADMIN.password },
      {
        ip: '127.0.0.1',
      },
    );
  });
  afterAll(() => t.close());

  const wrongLogin = (remoteAddress: string, forwardedFor: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress,
      headers: { 'x-forwarded-for': forwardedFor },
      payload: { username: TEST_ADMIN.username, password: 'not the password at all' },
    });

  it('holds through the proxy against a made-up X-Forwarded-For', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 10; i++) {
      // The client's made-up entry first, the address the proxy saw last.
      codes.push((await wrongLogin(proxyAddress, `192.0.2.${i}, 203.0.113.50`)).statusCode);
    }
    expect(codes).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429]);
    // Another client behind the same proxy is not locked out by the first.
    expect((await wrongLogin(proxyAddress, '203.0.113.51')).statusCode).toBe(401);
  });

  it('holds against a container that reaches the API directly and forwards for itself', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 10; i++) {
      codes.push((await wrongLogin('172.19.0.5', `198.51.100.${i}`)).statusCode);
    }
    expect(codes.filter((c) => c === 429)).toHaveLength(5);
  });
});
