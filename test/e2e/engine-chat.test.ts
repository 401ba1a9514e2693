import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningWorkers } from '../../src/workers/start.js';
import { createTestApp, startTestWorkers, type TestApp } from '../support/app.js';
import { adminToken, authHeader } from '../support/auth.js';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';
import { isolatedEnv, mockProvider, opencodeBin } from '../support/opencode.js';

/**
 * The whole chain, as `steward start` runs it: a supervised `opencode serve` (talking to the
 * fake model) spawns the real `steward mcp`; the model calls `steward_script_run`; the script
 * runs on a worker and returns a secret; the chat WebSocket receives the reply redacted.
 */
const SECRET = 'sk-e2e-7f3a9b1c5d2e8f40';

interface ClientSocket {
  on(event: 'message', listener: (data: Buffer) => void): void;
  send(data: string): void;
  close(): void;
}

async function openChat(app: FastifyInstance, sessionId: string, token: string) {
  const got: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  const ws = (await app.injectWS(
    `/api/sessions/${sessionId}/chat?token=${encodeURIComponent(token)}`,
    {},
    {
      onInit: (socket) =>
        (socket as unknown as ClientSocket).on('message', (data) => {
          got.push(JSON.parse(data.toString()) as Record<string, unknown>);
          for (const w of waiters.splice(0)) w();
        }),
    },
  )) as unknown as ClientSocket;
  const until = (pred: () => boolean, ms = 45_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timeout; got ${JSON.stringify(got)}`)), ms);
      const check = () => (pred() ? (clearTimeout(timer), resolve()) : waiters.push(check));
      check();
    });
  return { ws, got, until };
}

describe('chat through the supervised engine and Steward tools', { timeout: 120_000 }, () => {
  let fake: FakeModel;
  let t: TestApp;
  let workers: RunningWorkers;
  let auth: Record<string, string>;
  let token: string;
  const engineHome = mkdtempSync(path.join(os.tmpdir(), 'steward-e2e-engine-'));

  beforeAll(async () => {
    fake = await startFakeModel();
    t = await createTestApp(
      {
        'engine.command': [opencodeBin],
        'engine.config': {
          provider: mockProvider(fake.baseURL),
          model: 'mock/echo',
          small_model: 'mock/echo',
        },
        'engine.env': isolatedEnv(engineHome),
        'log.level': 'error',
        // leaky.star returns its value, for the tool server's redaction to catch.
        'scripts.secret_values': 'plain',
      },
      'e2e-engine',
      undefined,
      { superviseEngine: true },
    );
    await t.services.engine.start();
    await t.services.engine.hub.whenConnected(30_000);
    workers = await startTestWorkers(t);
    token = await adminToken(t);
    auth = authHeader(token);

    await t.services.secrets.set('E2E_KEY', SECRET);
    await t.services.scripts.create(
      'leaky.star',
      '# @secrets: E2E_KEY\ndef main():\n    return {"key": secrets.get("E2E_KEY")}\n',
      'admin',
    );
    await t.services.scripts.approve('leaky.star', 'admin');
  }, 120_000);

  afterAll(async () => {
    await workers?.close();
    await t?.close();
    await fake?.close();
    rmSync(engineHome, { recursive: true, force: true });
  });

  it('streams text then done, and the messages list honours limit', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/api/sessions', headers: auth });
    expect(created.statusCode).toBe(200);
    const session = created.json();
    expect(session.id).toMatch(/^ses_/);
    const list = await t.app.inject({ method: 'GET', url: '/api/sessions', headers: auth });
    expect(list.json().find((s: { id: string }) => s.id === session.id).active).toBe(true);

    fake.enqueue({ kind: 'text', text: 'Hello from the fake model, in pieces.', chunks: 5 });
    const chat = await openChat(t.app, session.id, token);
    await chat.until(() => chat.got.some((m) => m.type === 'connected'));
    chat.ws.send(JSON.stringify({ type: 'message', content: 'hi there' }));
    await chat.until(() => chat.got.some((m) => m.type === 'done'));
    const texts = chat.got.filter((m) => m.type === 'text');
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.map((m) => m.content).join('')).toBe('Hello from the fake model, in pieces.');
    expect(chat.got.at(-1)).toEqual({ type: 'done' });
    chat.ws.close();

    const one = await t.app.inject({
      method: 'GET',
      url: `/api/sessions/${session.id}/messages?limit=1`,
      headers: auth,
    });
    expect(one.json()).toHaveLength(1);
    const all = await t.app.inject({
      method: 'GET',
      url: `/api/sessions/${session.id}/messages`,
      headers: auth,
    });
    expect(all.json().map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    expect(all.json()[0]).toMatchObject({
      sessionID: session.id,
      time: { created: expect.any(Number), updated: expect.any(Number) },
    });
  });

  it('relays a Steward tool call whose result carries a secret, redacted', async () => {
    const session = (
      await t.app.inject({ method: 'POST', url: '/api/sessions', headers: auth })
    ).json();
    fake.enqueue({
      kind: 'tool',
      tool: 'steward_script_run',
      args: { name: 'leaky' },
      after: (result) => `The script said: ${result}`,
    });
    const chat = await openChat(t.app, session.id, token);
    await chat.until(() => chat.got.some((m) => m.type === 'connected'));
    chat.ws.send(JSON.stringify({ type: 'message', content: 'run the leaky script' }));
    await chat.until(() => chat.got.some((m) => m.type === 'done'));
    const reply = chat.got
      .filter((m) => m.type === 'text')
      .map((m) => m.content)
      .join('');
    expect(reply).toContain('The script said:');
    expect(reply).toContain('[REDACTED:E2E_KEY]');
    expect(JSON.stringify(chat.got)).not.toContain(SECRET);
    // The MCP server redacted it before the engine ever saw it.
    const toolResults = JSON.stringify(fake.requests.map((r) => r.body.messages));
    expect(toolResults).not.toContain(SECRET);
    chat.ws.close();
  });

  it('applies a new default model to sessions created afterwards only', async () => {
    const before = (
      await t.app.inject({ method: 'POST', url: '/api/sessions', headers: auth })
    ).json();
    const models = (
      await t.app.inject({ method: 'GET', url: '/api/models', headers: auth })
    ).json();
    expect(models.models).toEqual(
      expect.arrayContaining([
        { provider_id: 'mock', model_id: 'alt', context_limit: 100_000, output_limit: 4_000 },
      ]),
    );
    const set = await t.app.inject({
      method: 'PUT',
      url: '/api/models/default',
      headers: auth,
      payload: { provider: 'mock', model: 'alt' },
    });
    expect(set.json()).toEqual({ ok: true, default: { provider: 'mock', model: 'alt' } });
    const after = (
      await t.app.inject({ method: 'POST', url: '/api/sessions', headers: auth })
    ).json();

    const modelOf = async (id: string) => {
      fake.reset();
      fake.enqueue({ kind: 'text', text: 'ok' });
      await t.services.engine.client.prompt(id, 'which model?');
      return fake.chatRequests().at(-1)?.body.model;
    };
    expect(await modelOf(before.id)).toBe('echo');
    expect(await modelOf(after.id)).toBe('alt');
  });
});
