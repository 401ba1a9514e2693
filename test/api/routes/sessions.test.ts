import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorsPlugin } from '../../../src/api/plugins/errors.js';
import { sessionRoutes } from '../../../src/api/routes/sessions.js';
import type { MessageView, SessionView } from '../../../src/engine/mapping.js';
import {
  DEFAULT_MESSAGE_LIMIT,
  type SessionsService,
} from '../../../src/engine/sessions-service.js';
import { EngineUnavailableError } from '../../../src/errors/engine-errors.js';
import { NotFoundError } from '../../../src/errors/request-errors.js';

const session = (id: string): SessionView => ({
  id,
  slug: 'quiet-river',
  title: 'A chat',
  directory: '/workspace',
  version: '1.0.0',
  time: { created: 1, updated: 2 },
});

/** Sessions kept in memory, recording the calls the routes make. */
function fakeSessions() {
  const calls: string[] = [];
  const store = new Map<string, SessionView>([['ses_1', session('ses_1')]]);
  let down = false;
  const known = (id: string) => {
    if (down) throw new EngineUnavailableError('connection refused');
    const found = store.get(id);
    if (!found) throw new NotFoundError(`session "${id}" not found`);
    return found;
  };
  const service: SessionsService = {
    async list() {
      calls.push('list');
      if (down) throw new EngineUnavailableError('connection refused');
      return [...store.values()].map((s) => ({ ...s, active: s.id === 'ses_1', internal: 'x' }));
    },
    async create() {
      calls.push('create');
      const created = session(`ses_${store.size + 1}`);
      store.set(created.id, created);
      return created;
    },
    async get(id) {
      calls.push(`get ${id}`);
      return known(id);
    },
    async remove(id) {
      calls.push(`remove ${id}`);
      known(id);
      store.delete(id);
      return { ok: true };
    },
    async messages(id, limit) {
      calls.push(`messages ${id} ${limit}`);
      known(id);
      const message: MessageView & { extra: string } = {
        id: 'msg_1',
        sessionID: id,
        role: 'assistant',
        parts: [{ type: 'text', text: 'hi', anything: { nested: true } }],
        time: { created: 1, updated: 2 },
        extra: 'dropped',
      };
      return [message];
    },
    async activeSessionId() {
      return 'ses_1';
    },
  };
  return { service, calls, setDown: (v: boolean) => (down = v) };
}

let app: FastifyInstance;
let fake: ReturnType<typeof fakeSessions>;
beforeAll(async () => {
  fake = fakeSessions();
  // As the app: ids up to 256 characters reach the route (Fastify's default would answer 414).
  app = Fastify({ routerOptions: { maxParamLength: 256 } });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(errorsPlugin);
  await app.register(sessionRoutes, { sessions: fake.service, prefix: '/api' });
  await app.ready();
});
afterAll(() => app.close());
beforeEach(() => {
  fake.calls.length = 0;
  fake.setDown(false);
});

describe('session routes', () => {
  it('lists sessions with `active`, answering only the documented fields', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/sessions' });
    expect(res.statusCode).toBe(200);
    expect(res.json()[0]).toEqual({ ...session('ses_1'), active: true });
  });

  it('creates, reads and deletes a session', async () => {
    const created = await app.inject({ method: 'POST', url: '/api/sessions' });
    const id = created.json().id as string;
    expect((await app.inject({ method: 'GET', url: `/api/sessions/${id}` })).json()).toEqual(
      session(id),
    );
    expect((await app.inject({ method: 'DELETE', url: `/api/sessions/${id}` })).json()).toEqual({
      ok: true,
    });
    const gone = await app.inject({ method: 'GET', url: `/api/sessions/${id}` });
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual({ error: 'not_found', message: `session "${id}" not found` });
  });

  it('reads messages with the default limit, passing parts through whole', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/sessions/ses_1/messages' });
    expect(fake.calls).toEqual([`messages ses_1 ${DEFAULT_MESSAGE_LIMIT}`]);
    expect(res.json()).toEqual([
      {
        id: 'msg_1',
        sessionID: 'ses_1',
        role: 'assistant',
        parts: [{ type: 'text', text: 'hi', anything: { nested: true } }],
        time: { created: 1, updated: 2 },
      },
    ]);
  });

  it('accepts a message limit of 1 to 1000 and refuses others before asking the engine', async () => {
    await app.inject({ method: 'GET', url: '/api/sessions/ses_1/messages?limit=1000' });
    expect(fake.calls).toEqual(['messages ses_1 1000']);
    for (const limit of ['0', '1001', '2.5', 'ten']) {
      const res = await app.inject({
        method: 'GET',
        url: `/api/sessions/ses_1/messages?limit=${limit}`,
      });
      expect(res.statusCode, limit).toBe(400);
      expect(res.json().message).toMatch(/^querystring\.limit: /);
    }
    expect(fake.calls).toEqual(['messages ses_1 1000']);
  });

  it('refuses a session id longer than 128 characters', async () => {
    const res = await app.inject({ method: 'GET', url: `/api/sessions/${'s'.repeat(129)}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/^params\.id: /);
    expect(fake.calls).toEqual([]);
    await app.inject({ method: 'GET', url: `/api/sessions/${'s'.repeat(128)}` });
    expect(fake.calls).toEqual([`get ${'s'.repeat(128)}`]);
  });

  it('answers 503 engine_unavailable when the engine is down', async () => {
    fake.setDown(true);
    const res = await app.inject({ method: 'GET', url: '/api/sessions' });
    expect(res.statusCode).toBe(503);
    expect(res.json().error).toBe('engine_unavailable');
  });
});
