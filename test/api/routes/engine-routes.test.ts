import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authPlugin } from '../../../src/api/plugins/auth.js';
import { chatRoutes, MAX_FRAME_BYTES } from '../../../src/api/routes/chat-ws.js';
import { modelRoutes } from '../../../src/api/routes/models.js';
import { sessionRoutes } from '../../../src/api/routes/sessions.js';
import { errorsPlugin } from '../../../src/api/plugins/errors.js';
import { createTokenService } from '../../../src/auth/tokens.js';
import { createEngineClient, type EngineClient } from '../../../src/engine/client.js';
import { createEventHub, type EventHub } from '../../../src/engine/event-hub.js';
import { createModelsService } from '../../../src/engine/models-service.js';
import { createSessionsService } from '../../../src/engine/sessions-service.js';
import { createRedactor } from '../../../src/secrets/redactor.js';
import { createStreamRedactor } from '../../../src/secrets/stream-redactor.js';
import { freePort } from '../../../src/store/embedded-redis.js';
import { createEnginePreferencesRepository } from '../../../src/store/engine-preferences-repository.js';
import type { Redis } from '../../../src/store/redis.js';
import { startFakeModel, type FakeModel } from '../../support/fake-model.js';
import { startTestEngine, type TestEngine } from '../../support/opencode.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../../support/redis.js';

const log = pino({ level: 'silent' });
const SECRET = 'sk-live-0123456789abcdef';
const auth = { secret: 'x'.repeat(48), issuer: 'steward-test' };
const tokens = createTokenService({ ...auth, accessTtlMs: 15 * 60_000, refreshTtlMs: 3_600_000 });
const user = { username: 'admin', role: 'admin' as const, sid: 's' };
const goodToken = tokens.signAccess(user).token;

async function buildTestApp(client: EngineClient, hub: EventHub, redis: Redis) {
  const app = Fastify({ logger: false });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(errorsPlugin);
  // As the app does: at the root, so `injectWS` exists there; the chat plugin then reuses it.
  await app.register(websocket, { options: { maxPayload: 1024 * 1024 } });
  const sessions = createSessionsService({
    client,
    preferences: createEnginePreferencesRepository(redis),
    log,
  });
  const models = createModelsService({
    client,
    preferences: createEnginePreferencesRepository(redis),
  });
  await app.register(
    async (api) => {
      await api.register(authPlugin, { auth });
      await api.register(sessionRoutes, { sessions });
      await api.register(modelRoutes, { models });
      await api.register(chatRoutes, {
        sessions,
        client,
        hub,
        issuer: auth.issuer,
        // Session liveness is the access check's own test (test/auth/access-check.test.ts).
        access: { allows: async () => true, allowsNow: async () => true, watch: () => () => {} },
        createRedactor: () =>
          createStreamRedactor(createRedactor([{ name: 'API_KEY', value: SECRET }])),
      });
    },
    { prefix: '/api' },
  );
  await app.ready();
  return app;
}

interface ClientSocket {
  send(data: string | Buffer): void;
  on(event: 'message', listener: (data: Buffer) => void): void;
  close(): void;
  readyState: number;
}

/** Collects what the server sends, and waits for messages matching a predicate. */
function recorder(ws: ClientSocket) {
  const got: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (data) => {
    got.push(JSON.parse(data.toString()) as Record<string, unknown>);
    for (const w of waiters.splice(0)) w();
  });
  const until = (pred: (m: Record<string, unknown>[]) => boolean, ms = 20_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timeout; got ${JSON.stringify(got)}`)), ms);
      const check = () => {
        if (pred(got)) {
          clearTimeout(timer);
          resolve();
        } else waiters.push(check);
      };
      check();
    });
  return { got, until };
}

/** Opens the chat socket, listening from the first frame (the server greets at once). */
async function openChat(app: FastifyInstance, sessionID: string) {
  let rec: ReturnType<typeof recorder> | undefined;
  const ws = (await app.injectWS(
    `/api/sessions/${sessionID}/chat?token=${goodToken}`,
    {},
    {
      onInit: (socket) => void (rec = recorder(socket as unknown as ClientSocket)),
    },
  )) as unknown as ClientSocket;
  return { ws, ...(rec as ReturnType<typeof recorder>) };
}

describe('sessions, models and chat routes against a real engine', { timeout: 60_000 }, () => {
  let fake: FakeModel;
  let engine: TestEngine;
  let client: EngineClient;
  let hub: EventHub;
  let redis: Redis;
  let app: FastifyInstance;
  const prefix = uniquePrefix('engine-routes');

  beforeAll(async () => {
    fake = await startFakeModel();
    engine = await startTestEngine({ modelURL: fake.baseURL });
    client = createEngineClient({ url: engine.url, log, requestTimeoutMs: 10_000 });
    hub = createEventHub({ client, log, backoff: { initialMs: 50, maxMs: 500 } });
    redis = storeRedis(prefix);
    app = await buildTestApp(client, hub, redis);
  });

  afterAll(async () => {
    await app?.close();
    await hub?.stop();
    await engine?.stop();
    await fake?.close();
    await dropPrefix(prefix);
    redis?.disconnect();
  });

  beforeEach(() => fake.reset());

  it('creates, lists, reads and deletes sessions', async () => {
    const created = await app.inject({ method: 'POST', url: '/api/sessions' });
    expect(created.statusCode).toBe(200);
    const session = created.json() as { id: string; time: { created: number } };
    expect(session.id).toMatch(/^ses_/);

    const list = (await app.inject({ method: 'GET', url: '/api/sessions' })).json() as Array<{
      id: string;
      active: boolean;
    }>;
    expect(list.find((s) => s.id === session.id)?.active).toBe(true);

    const one = await app.inject({ method: 'GET', url: `/api/sessions/${session.id}` });
    expect(one.json()).toMatchObject({ id: session.id, time: { created: session.time.created } });

    const messages = await app.inject({
      method: 'GET',
      url: `/api/sessions/${session.id}/messages?limit=5`,
    });
    expect(messages.statusCode).toBe(200);
    expect(messages.json()).toEqual([]);
    const badLimit = await app.inject({
      method: 'GET',
      url: `/api/sessions/${session.id}/messages?limit=0`,
    });
    expect(badLimit.statusCode).toBe(400);

    expect(
      (await app.inject({ method: 'DELETE', url: `/api/sessions/${session.id}` })).json(),
    ).toEqual({ ok: true });
    const gone = await app.inject({ method: 'GET', url: `/api/sessions/${session.id}` });
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toMatchObject({ error: 'not_found' });
  });

  it('lists models and sets the default', async () => {
    const list = await app.inject({ method: 'GET', url: '/api/models' });
    expect(list.json()).toMatchObject({ default: { provider: 'mock', model: 'echo' } });
    const missing = await app.inject({
      method: 'PUT',
      url: '/api/models/default',
      payload: { provider: 'mock' },
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ error: 'invalid_request' });
    const unknown = await app.inject({
      method: 'PUT',
      url: '/api/models/default',
      payload: { provider: 'mock', model: 'zzz' },
    });
    expect(unknown.statusCode).toBe(400);
    const ok = await app.inject({
      method: 'PUT',
      url: '/api/models/default',
      payload: { provider: 'mock', model: 'alt' },
    });
    expect(ok.json()).toEqual({ ok: true, default: { provider: 'mock', model: 'alt' } });
  });

  it('refuses the chat socket without a valid token or for an unknown session', async () => {
    const session = (await app.inject({ method: 'POST', url: '/api/sessions' })).json() as {
      id: string;
    };
    await expect(app.injectWS(`/api/sessions/${session.id}/chat`)).rejects.toThrow(/401/);
    await expect(app.injectWS(`/api/sessions/${session.id}/chat?token=bad`)).rejects.toThrow(/401/);
    // Signed with the right secret, but a refresh token, or another issuer's: refused alike.
    const refresh = tokens.signRefresh({ ...user, jti: 'j' }).token;
    const foreign = createTokenService({
      ...auth,
      issuer: 'someone-else',
      accessTtlMs: 60_000,
      refreshTtlMs: 60_000,
    }).signAccess(user).token;
    for (const token of [refresh, foreign]) {
      await expect(app.injectWS(`/api/sessions/${session.id}/chat?token=${token}`)).rejects.toThrow(
        /401/,
      );
    }
    await expect(app.injectWS(`/api/sessions/ses_unknown/chat?token=${goodToken}`)).rejects.toThrow(
      /404/,
    );
  });

  it('streams a redacted reply, and survives bad frames', async () => {
    const session = (await app.inject({ method: 'POST', url: '/api/sessions' })).json() as {
      id: string;
    };
    const { ws, got, until } = await openChat(app, session.id);
    await until((m) => m.length >= 1);
    expect(got[0]).toEqual({ type: 'connected', session_id: session.id });

    ws.send('{not json');
    await until((m) => m.length >= 2);
    expect(got[1]).toEqual({ type: 'error', content: 'Engine error: invalid message: not JSON' });
    ws.send(JSON.stringify({ type: 'message', content: 'x'.repeat(MAX_FRAME_BYTES + 10) }));
    await until((m) => m.length >= 3);
    expect(got[2]).toMatchObject({
      type: 'error',
      content: expect.stringMatching(/^Engine error: invalid message: larger than \d+ bytes$/),
    });
    ws.send(JSON.stringify({ type: 'nope' }));
    await until((m) => m.length >= 4);
    expect(got[3]).toMatchObject({ type: 'error' });

    // The secret is split across several streamed pieces; it still never reaches the client.
    fake.enqueue({
      kind: 'text',
      text: `Your key is ${SECRET}, keep it safe.`,
      chunks: 8,
      delayMs: 5,
    });
    ws.send(JSON.stringify({ type: 'message', content: 'what is my key?' }));
    await until((m) => m.some((x) => x.type === 'done'));
    const reply = got.slice(4);
    expect(reply.at(-1)).toEqual({ type: 'done' });
    const text = reply.flatMap((m) => (m.type === 'text' ? [m.content as string] : [])).join('');
    expect(text).toBe('Your key is [REDACTED:API_KEY], keep it safe.');
    expect(JSON.stringify(got)).not.toContain(SECRET);
    expect(ws.readyState).toBe(1);
    ws.close();
  });

  it('relays a model failure as an Engine error', async () => {
    const session = (await app.inject({ method: 'POST', url: '/api/sessions' })).json() as {
      id: string;
    };
    const { ws, got, until } = await openChat(app, session.id);
    await until((m) => m.length >= 1);
    fake.enqueue({ kind: 'error', status: 400, message: 'model says no' });
    ws.send(JSON.stringify({ type: 'message', content: 'fail please' }));
    await until((m) => m.some((x) => x.type === 'error'));
    const error = got.find((m) => m.type === 'error');
    expect(error?.content).toMatch(/^Engine error: .*model says no/);
    ws.close();
  });
});

describe('routes when the engine is down', () => {
  let app: FastifyInstance;
  let hub: EventHub;
  let redis: Redis;
  const prefix = uniquePrefix('engine-down');

  beforeAll(async () => {
    const client = createEngineClient({
      url: `http://127.0.0.1:${await freePort()}`,
      log,
      requestTimeoutMs: 2000,
    });
    hub = createEventHub({ client, log, backoff: { initialMs: 50, maxMs: 200 } });
    redis = storeRedis(prefix);
    app = await buildTestApp(client, hub, redis);
  });

  afterAll(async () => {
    await app?.close();
    await hub?.stop();
    await dropPrefix(prefix);
    redis?.disconnect();
  });

  it('answers 503 engine_unavailable, never 500', async () => {
    for (const [method, url] of [
      ['GET', '/api/sessions'],
      ['POST', '/api/sessions'],
      ['GET', '/api/sessions/ses_x'],
      ['DELETE', '/api/sessions/ses_x'],
      ['GET', '/api/sessions/ses_x/messages'],
      ['GET', '/api/models'],
    ] as const) {
      const res = await app.inject({ method, url });
      expect(res.statusCode, `${method} ${url}`).toBe(503);
      expect(res.json()).toMatchObject({
        error: 'engine_unavailable',
        message: expect.stringMatching(/^AI engine is not reachable/),
      });
    }
    await expect(app.injectWS(`/api/sessions/ses_x/chat?token=${goodToken}`)).rejects.toThrow(
      /503/,
    );
  });
});
