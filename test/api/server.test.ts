import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../../src/api/server.js';
import {
  buildAppDeps,
  buildCore,
  buildServerParts,
  type ServerParts,
} from '../../src/cli/compose.js';
import { createTestContext, type TestContext } from '../support/app.js';

describe('listen', () => {
  let t: TestContext;
  let parts: ServerParts;
  beforeAll(async () => {
    t = await createTestContext({ 'server.host': '127.0.0.1', 'server.port': 0 }, 'server');
  });
  afterAll(async () => {
    await parts?.engine.stop();
    await t.close();
  });

  it('serves the app on the configured address until closed, letting a request in flight finish', async () => {
    const core = await buildCore(t.ctx);
    parts = await buildServerParts(t.ctx, core, { superviseEngine: false });
    const app = await listen(await buildAppDeps(t.ctx, core, parts));
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    expect(address.address).toBe('127.0.0.1');
    expect(address.port).toBeGreaterThan(0);
    const base = `http://127.0.0.1:${address.port}`;

    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('OK');

    // A request whose body is still arriving when the close begins is answered, not cut off.
    const body = JSON.stringify({ username: 'admin', password: 'x', confirm_password: 'y' });
    const req = http.request(`${base}/api/setup`, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const answered = new Promise<number | undefined>((resolve, reject) => {
      req.on('response', (r) => {
        r.resume();
        resolve(r.statusCode);
      });
      req.on('error', reject);
    });
    req.write(body.slice(0, 10));
    await new Promise((r) => req.once('socket', (s) => s.once('connect', r)));
    await new Promise((r) => setTimeout(r, 50));
    const closing = app.close();
    req.end(body.slice(10));
    expect(await answered).toBe(400);
    await closing;
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });
});
