import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authPlugin } from '../../../src/api/plugins/auth.js';
import { errorsPlugin } from '../../../src/api/plugins/errors.js';
import { chatRoutes } from '../../../src/api/routes/chat-ws.js';
import type { ChatListener, EventHub } from '../../../src/engine/event-hub.js';
import { createRedactor } from '../../../src/secrets/redactor.js';
import { createStreamRedactor } from '../../../src/secrets/stream-redactor.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { TEST_ADMIN } from '../../support/auth.js';

/**
 * A chat socket lives no longer than its login session: logout, or the revocation of its refresh
 * family (a rotated-out refresh token presented again), closes it within 2 s with a close frame
 * saying why, and a prompt sent in between never reaches the engine. The session store, the auth
 * routes and the session check are the real ones on Redis; the engine is played by the test.
 */
interface ClientSocket {
  send(data: string): void;
  on(event: 'message', listener: (data: Buffer) => void): void;
  on(event: 'close', listener: (code: number, reason: Buffer) => void): void;
  close(): void;
}

const hub: EventHub = {
  subscribe: (_id: string, _listener: ChatListener) => () => {},
  whenConnected: async () => {},
  connected: () => true,
  start() {},
  async stop() {},
};

let t: TestApp;
let chat: FastifyInstance;
const prompts: string[] = [];

beforeAll(async () => {
  t = await createTestApp(
    { 'admin.jwt.refresh_grace': 100, 'admin.rate_limit.login_per_minute': 50 },
    'chat-ws-session',
  );
  const setup = await t.app.inject({
    method: 'POST',
    url: '/api/setup',
    payload: { ...TEST_ADMIN, confirm_password: TEST_ADMIN.password },
  });
  expect(setup.statusCode).toBe(200);
  const auth = t.services.authModule;
  chat = Fastify();
  chat.setValidatorCompiler(validatorCompiler);
  chat.setSerializerCompiler(serializerCompiler);
  await chat.register(errorsPlugin);
  await chat.register(websocket);
  await chat.register(
    async (api) => {
      await api.register(authPlugin, { auth });
      await api.register(chatRoutes, {
        sessions: { get: async (id) => ({ id }) as never },
        client: {
          async promptAsync(_id: string, text: string) {
            prompts.push(text);
          },
        },
        hub,
        issuer: auth.issuer,
        access: auth.access,
        createRedactor: () => createStreamRedactor(createRedactor([])),
      });
    },
    { prefix: '/api' },
  );
  await chat.ready();
});
afterAll(async () => {
  await chat?.close();
  await t?.close();
});

/** Logs in over HTTP: the refresh cookie and an access token of a new login session. */
async function login(): Promise<{ refresh: string; access: string }> {
  const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: TEST_ADMIN });
  const refresh = res.cookies.find((c) => c.name === 'refresh')?.value as string;
  const session = await t.app.inject({ method: 'GET', url: '/api/session', cookies: { refresh } });
  const rotated = session.cookies.find((c) => c.name === 'refresh')?.value as string;
  return { refresh: rotated, access: session.json().access_token as string };
}

async function open(access: string) {
  let closed: { code: number; reason: string; at: number } | undefined;
  const frames: Array<Record<string, unknown>> = [];
  const ws = (await chat.injectWS(
    `/api/sessions/ses_1/chat?token=${access}`,
    {},
    {
      onInit: (raw) => {
        const socket = raw as unknown as ClientSocket;
        socket.on('message', (data) => frames.push(JSON.parse(data.toString())));
        socket.on('close', (code, reason) => {
          closed = { code, reason: reason.toString(), at: Date.now() };
        });
      },
    },
  )) as unknown as ClientSocket;
  await expect.poll(() => frames.length).toBe(1);
  return { ws, frames, closed: () => closed };
}

describe('chat WebSocket and the login session', () => {
  it('logout closes the socket within 2 s saying why, and a prompt sent after it is not sent', async () => {
    prompts.length = 0;
    const mine = await login();
    const other = await login();
    const a = await open(mine.access);
    const b = await open(other.access);
    a.ws.send(JSON.stringify({ type: 'message', content: 'before logout' }));
    await expect.poll(() => prompts).toEqual(['before logout']);

    const logout = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { authorization: `Bearer ${mine.access}` },
    });
    expect(logout.statusCode).toBe(204);
    const loggedOutAt = Date.now();
    a.ws.send(JSON.stringify({ type: 'message', content: 'after logout' }));
    await expect.poll(() => a.closed(), { timeout: 2000, interval: 20 }).toBeDefined();
    const closed = a.closed()!;
    expect(closed.at - loggedOutAt).toBeLessThan(2000);
    expect(closed.code).toBe(1008);
    expect(closed.reason).toMatch(/session ended/);
    expect(closed.reason).toMatch(/log in again/);
    await new Promise((r) => setTimeout(r, 300));
    expect(prompts).toEqual(['before logout']);

    // The other login session's socket goes on.
    expect(b.closed()).toBeUndefined();
    b.ws.send(JSON.stringify({ type: 'message', content: 'still here' }));
    await expect.poll(() => prompts).toEqual(['before logout', 'still here']);
    b.ws.close();
  });

  it('revoking the refresh family (a rotated-out token presented again) closes it too', async () => {
    prompts.length = 0;
    const mine = await login();
    const socket = await open(mine.access);
    // Rotate, let the grace pass, then present the old token: reuse revokes the whole session.
    const rotated = await t.app.inject({
      method: 'GET',
      url: '/api/session',
      cookies: { refresh: mine.refresh },
    });
    expect(rotated.statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 250));
    const reuse = await t.app.inject({
      method: 'GET',
      url: '/api/session',
      cookies: { refresh: mine.refresh },
    });
    expect(reuse.statusCode).toBe(401);
    const revokedAt = Date.now();
    await expect.poll(() => socket.closed(), { timeout: 2000, interval: 20 }).toBeDefined();
    expect(socket.closed()!.at - revokedAt).toBeLessThan(2000);
    expect(socket.closed()!.code).toBe(1008);
    socket.ws.send(JSON.stringify({ type: 'message', content: 'after revocation' }));
    await new Promise((r) => setTimeout(r, 200));
    expect(prompts).toEqual([]);
    // A socket for a session that is already gone is refused before the upgrade.
    await expect(chat.injectWS(`/api/sessions/ses_1/chat?token=${mine.access}`)).rejects.toThrow(
      /401/,
    );
  });
});
