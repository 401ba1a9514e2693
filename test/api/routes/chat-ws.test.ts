import { createRequire } from 'node:module';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authPlugin } from '../../../src/api/plugins/auth.js';
import { errorsPlugin } from '../../../src/api/plugins/errors.js';
import {
  chatRoutes,
  MAX_MESSAGE_CHARS,
  type ChatRouteOptions,
} from '../../../src/api/routes/chat-ws.js';
import { createTokenService } from '../../../src/auth/tokens.js';
import type { ChatEvent, ChatListener, EventHub } from '../../../src/engine/event-hub.js';
import type { SessionView } from '../../../src/engine/mapping.js';
import { EngineUnavailableError } from '../../../src/errors/engine-errors.js';
import { NotFoundError } from '../../../src/errors/request-errors.js';
import { createRedactor } from '../../../src/secrets/redactor.js';
import { createStreamRedactor } from '../../../src/secrets/stream-redactor.js';

/** The `ws` client (a dependency of @fastify/websocket; its types are not installed). */
interface WsClient {
  on(event: 'message', listener: (data: Buffer) => void): void;
  on(event: 'error', listener: (err: Error) => void): void;
  close(): void;
}
const WebSocket = createRequire(import.meta.url)('ws') as new (url: string) => WsClient;

const SECRET = 'sk-live-0123456789abcdef';
const auth = { secret: 'x'.repeat(48), issuer: 'steward-test' };
const tokens = createTokenService({ ...auth, accessTtlMs: 60_000, refreshTtlMs: 60_000 });
const token = tokens.signAccess({ username: 'admin', role: 'admin', sid: 's' }).token;

/** The shared event stream, driven by the test: `emit` plays the engine. */
function fakeHub() {
  const listeners = new Map<string, Set<ChatListener>>();
  let connected = true;
  const hub: EventHub = {
    subscribe(id, listener) {
      const set = listeners.get(id) ?? new Set();
      set.add(listener);
      listeners.set(id, set);
      return () => set.delete(listener);
    },
    whenConnected: async () => {
      if (!connected) throw new Error('timeout');
    },
    connected: () => connected,
    start() {},
    async stop() {},
  };
  return {
    hub,
    emit: (id: string, event: ChatEvent) => listeners.get(id)?.forEach((l) => l(event)),
    listeners: (id: string) => listeners.get(id)?.size ?? 0,
    setConnected: (v: boolean) => (connected = v),
  };
}

const view = (id: string): SessionView => ({
  id,
  slug: 's',
  title: '',
  directory: '/w',
  version: '1',
  time: { created: 1, updated: 1 },
});

interface ClientSocket {
  send(data: string | Buffer): void;
  on(event: 'message', listener: (data: Buffer) => void): void;
  close(): void;
}

function recorder(ws: ClientSocket) {
  const got: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (data) => {
    got.push(JSON.parse(data.toString()) as Record<string, unknown>);
    for (const w of waiters.splice(0)) w();
  });
  const until = (count: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timeout; got ${JSON.stringify(got)}`)),
        5000,
      );
      const check = () => {
        if (got.length >= count) {
          clearTimeout(timer);
          resolve();
        } else waiters.push(check);
      };
      check();
    });
  return { got, until };
}

let app: FastifyInstance;
let events: ReturnType<typeof fakeHub>;
const prompts: Array<[string, string]> = [];
let promptFailure: Error | undefined;
const sessionLookups: string[] = [];

beforeAll(async () => {
  events = fakeHub();
  const options: ChatRouteOptions = {
    sessions: {
      async get(id) {
        sessionLookups.push(id);
        if (id !== 'ses_1') throw new NotFoundError(`session "${id}" not found`);
        return view(id);
      },
    },
    client: {
      async promptAsync(id: string, text: string) {
        if (promptFailure) throw promptFailure;
        prompts.push([id, text]);
      },
    },
    hub: events.hub,
    issuer: auth.issuer,
    // Session liveness is the access check's own test (test/auth/access-check.test.ts).
    access: { allows: async () => true, allowsNow: async () => true, watch: () => () => {} },
    createRedactor: () =>
      createStreamRedactor(createRedactor([{ name: 'API_KEY', value: SECRET }])),
  };
  app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(errorsPlugin);
  await app.register(websocket, { options: { maxPayload: 1024 * 1024 } });
  await app.register(
    async (api) => {
      await api.register(authPlugin, { auth });
      await api.register(chatRoutes, options);
    },
    { prefix: '/api' },
  );
  await app.ready();
});
afterAll(() => app.close());
beforeEach(() => {
  prompts.length = 0;
  sessionLookups.length = 0;
  promptFailure = undefined;
  events.setConnected(true);
});

async function openChat(id = 'ses_1') {
  let rec: ReturnType<typeof recorder> | undefined;
  const ws = (await app.injectWS(
    `/api/sessions/${id}/chat?token=${token}`,
    {},
    { onInit: (socket) => void (rec = recorder(socket as unknown as ClientSocket)) },
  )) as unknown as ClientSocket;
  const r = rec as ReturnType<typeof recorder>;
  await r.until(1);
  return { ws, ...r };
}

describe('chat WebSocket', () => {
  it('needs the auth plugin on its scope', async () => {
    const bare = Fastify();
    await expect(
      bare.register(chatRoutes, {} as unknown as ChatRouteOptions).ready(),
    ).rejects.toThrow(/auth plugin/);
    await bare.close();
  });

  it('checks the token before looking the session up, and refuses before the upgrade', async () => {
    await expect(app.injectWS('/api/sessions/ses_1/chat')).rejects.toThrow(/401/);
    await expect(app.injectWS('/api/sessions/ses_1/chat?token=nope')).rejects.toThrow(/401/);
    expect(sessionLookups).toEqual([]);
    await expect(app.injectWS(`/api/sessions/ses_2/chat?token=${token}`)).rejects.toThrow(/404/);
  });

  it('greets, forwards a message to the engine and relays the reply with secrets redacted', async () => {
    const { ws, got, until } = await openChat();
    expect(got[0]).toEqual({ type: 'connected', session_id: 'ses_1' });
    ws.send(JSON.stringify({ type: 'message', content: 'hello' }));
    await expect.poll(() => prompts).toEqual([['ses_1', 'hello']]);

    // The secret arrives split over three pieces, then the turn ends.
    for (const piece of ['key: sk-live-0123', '456789ab', 'cdef, bye']) {
      events.emit('ses_1', { type: 'text', content: piece });
    }
    events.emit('ses_1', { type: 'done' });
    await expect.poll(() => got.at(-1)).toEqual({ type: 'done' });
    const text = got.flatMap((m) => (m.type === 'text' ? [m.content] : [])).join('');
    expect(text).toBe('key: [REDACTED:API_KEY], bye');
    expect(JSON.stringify(got)).not.toContain('456789ab');
    await until(2);
    ws.close();
  });

  it('redacts engine error texts too', async () => {
    const { ws, got } = await openChat();
    events.emit('ses_1', { type: 'error', content: `bad key ${SECRET}` });
    await expect
      .poll(() => got.at(-1))
      .toEqual({ type: 'error', content: 'bad key [REDACTED:API_KEY]' });
    ws.close();
  });

  it('answers bad frames with an error and keeps the socket open', async () => {
    const { ws, got, until } = await openChat();
    ws.send('{nope');
    await until(2);
    expect(got[1]).toEqual({ type: 'error', content: 'Engine error: invalid message: not JSON' });
    for (const frame of [
      { type: 'message', content: '' },
      { type: 'message', content: 'x'.repeat(MAX_MESSAGE_CHARS + 1) },
      { type: 'other', content: 'x' },
    ]) {
      ws.send(JSON.stringify(frame));
    }
    await until(5);
    for (const m of got.slice(2)) {
      expect(m).toEqual({
        type: 'error',
        content: expect.stringMatching(/^Engine error: invalid message: expected \{"type"/),
      });
    }
    ws.send(JSON.stringify({ type: 'message', content: 'x'.repeat(MAX_MESSAGE_CHARS) }));
    await expect.poll(() => prompts.length).toBe(1);
    ws.close();
  });

  it('sends done only after a reply that was under way', async () => {
    const { ws, got } = await openChat();
    // An idle of the session with no reply of this client's: nothing to end.
    events.emit('ses_1', { type: 'done' });
    ws.send(JSON.stringify({ type: 'message', content: 'hello' }));
    await expect.poll(() => prompts.length).toBeGreaterThan(0);
    events.emit('ses_1', { type: 'text', content: 'hi' });
    events.emit('ses_1', { type: 'done' });
    events.emit('ses_1', { type: 'done' });
    await expect.poll(() => got.filter((m) => m.type === 'done').length).toBe(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(got.slice(1)).toEqual([{ type: 'text', content: 'hi' }, { type: 'done' }]);
    ws.close();
  });

  it('reports engine failures as Engine error, hiding non-catalogue details', async () => {
    const { ws, got, until } = await openChat();
    events.setConnected(false);
    ws.send(JSON.stringify({ type: 'message', content: 'a' }));
    await until(2);
    expect(got[1]).toEqual({ type: 'error', content: 'Engine error: event stream not connected' });

    events.setConnected(true);
    promptFailure = new EngineUnavailableError('engine restarting');
    ws.send(JSON.stringify({ type: 'message', content: 'b' }));
    await until(3);
    expect(got[2]).toEqual({ type: 'error', content: 'Engine error: engine restarting' });

    promptFailure = new Error('stack trace with /internal/path');
    ws.send(JSON.stringify({ type: 'message', content: 'c' }));
    await until(4);
    expect(got[3]).toEqual({ type: 'error', content: 'Engine error: AI engine failed' });
    ws.close();
  });

  it('stops listening to the session when the client disconnects', async () => {
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const before = events.listeners('ses_1');
    const ws = new WebSocket(`${url.replace('http', 'ws')}/api/sessions/ses_1/chat?token=${token}`);
    const greeting = await new Promise<string>((resolve, reject) => {
      ws.on('message', (data: Buffer) => resolve(data.toString()));
      ws.on('error', reject);
    });
    expect(JSON.parse(greeting)).toEqual({ type: 'connected', session_id: 'ses_1' });
    expect(events.listeners('ses_1')).toBe(before + 1);
    ws.close();
    await expect.poll(() => events.listeners('ses_1')).toBe(before);
  });
});
