import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningWorkers } from '../../src/workers/start.js';
import { createTestApp, startTestWorkers, type TestApp } from '../support/app.js';
import { adminToken, authHeader } from '../support/auth.js';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';
import { isolatedEnv, mockProvider, opencodeBin } from '../support/opencode.js';
import { startTelegramStandIn, type TelegramStandIn } from '../support/telegram-stand-in.js';
import { waitForDelivery } from '../support/wait.js';

/**
 * Talking to the assistant from Telegram, end to end: grammY polls the Bot API stand-in, the
 * gateway hands allowed messages to the real OpenCode (fake model), the reply streams back as a
 * message and its edits, redacted; strangers get a pairing code and never reach the engine; the
 * model's `chat_send` and a schedule's output arrive in the chat.
 */
const SECRET = 'sk-chat-4b8e1f9a2c7d5e30';
const ADA = { id: 501, first_name: 'Ada' };
const STRANGER = { id: 777, first_name: 'Mallory' };

describe('chat from Telegram through the gateway', { timeout: 180_000 }, () => {
  let fake: FakeModel;
  let api: TelegramStandIn;
  let t: TestApp;
  let workers: RunningWorkers;
  let auth: Record<string, string>;
  const engineHome = mkdtempSync(path.join(os.tmpdir(), 'steward-e2e-chat-'));

  const modelTurns = () => fake.chatRequests().length;
  const lastText = (chatId: number) => api.chatTexts(chatId).at(-1) ?? '';

  beforeAll(async () => {
    fake = await startFakeModel();
    api = await startTelegramStandIn();
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
        'chat.telegram': { token_secret: 'TELEGRAM_TOKEN', allow: [ADA.id], api_root: api.apiRoot },
      },
      'e2e-chat',
      undefined,
      { superviseEngine: true },
    );
    await t.services.secrets.set('TELEGRAM_TOKEN', api.token);
    await t.services.secrets.set('CHAT_KEY', SECRET);
    await t.services.redaction.refresh();
    await t.services.engine.start();
    await t.services.engine.hub.whenConnected(30_000);
    workers = await startTestWorkers(t);
    t.services.gateway?.start();
    auth = authHeader(await adminToken(t));
    await api.waitFor(() => api.calls.some((c) => c.method === 'getUpdates'));
  }, 180_000);

  afterAll(async () => {
    await t?.services.gateway?.stop();
    await workers?.close();
    await t?.close();
    await api?.close();
    await fake?.close();
    rmSync(engineHome, { recursive: true, force: true });
  });

  it('answers an allowed user with a message edited as the reply streams, the secret redacted', async () => {
    const reply = `Here you go: the key is ${SECRET}, keep it safe. ${'More words follow here. '.repeat(6)}`;
    fake.enqueue({
      kind: 'text',
      text: reply,
      chunks: 8,
      delayMs: 700,
      beforeLast: () => api.waitFor(() => api.chatTexts(ADA.id).length > 0, 60_000),
    });
    api.userWrites(ADA, 'what is the key?');
    await api.waitFor(
      () => lastText(ADA.id).includes('More words follow here. '.repeat(6).trim()),
      60_000,
    );
    const [message] = api.messages.filter((m) => m.chat_id === String(ADA.id));
    expect(message?.edits.length).toBeGreaterThan(0);
    expect(lastText(ADA.id)).toContain('the key is [REDACTED:CHAT_KEY], keep it safe');
    expect(JSON.stringify(api.messages)).not.toContain(SECRET);
    expect(fake.chatRequests().at(-1)?.userText).toBe('what is the key?');
    // Typing was shown while the engine worked.
    expect(
      api.calls.some((c) => c.method === 'sendChatAction' && c.body.chat_id === String(ADA.id)),
    ).toBe(true);
  });

  it('gives a stranger a pairing code, reaches no engine, and lets the administrator approve it', async () => {
    const turnsBefore = modelTurns();
    api.userWrites(STRANGER, 'hello? let me in');
    const notice = await api.waitFor(() => api.chatTexts(STRANGER.id)[0]);
    const code = /pairing code ([A-Z0-9]{8})/.exec(notice)?.[1];
    expect(code).toBeDefined();
    // Writing again within the minute gets no answer and no second code: a flood from
    // strangers cannot spend the bot's rate limit.
    api.userWrites(STRANGER, 'please?');
    await new Promise((r) => setTimeout(r, 1500));
    expect(api.chatTexts(STRANGER.id)).toHaveLength(1);
    expect(modelTurns()).toBe(turnsBefore);

    const list = await t.app.inject({ method: 'GET', url: '/api/chat/pairings', headers: auth });
    expect(list.json()).toEqual([
      expect.objectContaining({
        code,
        provider: 'telegram',
        user_id: String(STRANGER.id),
        name: 'Mallory',
      }),
    ]);
    const approved = await t.app.inject({
      method: 'POST',
      url: `/api/chat/pairings/${code}/approve`,
      headers: auth,
    });
    expect(approved.statusCode).toBe(200);
    expect(approved.json()).toMatchObject({ provider: 'telegram', user_id: String(STRANGER.id) });
    const again = await t.app.inject({
      method: 'POST',
      url: `/api/chat/pairings/${code}/deny`,
      headers: auth,
    });
    expect(again.statusCode).toBe(404);

    fake.enqueue({ kind: 'text', text: 'Welcome aboard.' });
    api.userWrites(STRANGER, 'thanks');
    await api.waitFor(() => lastText(STRANGER.id) === 'Welcome aboard.', 60_000);
    expect(modelTurns()).toBe(turnsBefore + 1);
  });

  it('answers /status and /new, which starts a new active session', async () => {
    const before = await t.services.engine.sessions.activeSessionId();
    api.userWrites(ADA, '/status');
    await api.waitFor(() => lastText(ADA.id).startsWith('Session '));
    expect(lastText(ADA.id)).toContain(String(before));
    expect(lastText(ADA.id)).toContain('Model: mock/echo');
    api.userWrites(ADA, '/new');
    await api.waitFor(() => lastText(ADA.id).startsWith('New session '));
    const after = await t.services.engine.sessions.activeSessionId();
    expect(after).not.toBe(before);
    expect(lastText(ADA.id)).toContain(String(after));
  });

  it("delivers the model's chat_send to a reachable chat and refuses others", async () => {
    fake.enqueue({
      kind: 'tool',
      tool: 'steward_chat_send',
      args: {
        provider: 'telegram',
        channel_id: String(ADA.id),
        message: `Reminder: ${SECRET} rotates today`,
      },
      after: (result) => `Tool said: ${result}`,
    });
    api.userWrites(ADA, 'remind me, then write to 999');
    await api
      .waitFor(() => api.chatTexts(ADA.id).some((text) => text.startsWith('Reminder:')), 60_000)
      .catch((err: Error) => {
        throw new Error(`${err.message}: ${JSON.stringify(api.chatTexts(ADA.id).slice(-3))}`);
      });
    expect(api.chatTexts(ADA.id)).toContain('Reminder: [REDACTED:CHAT_KEY] rotates today');
    await api.waitFor(() => lastText(ADA.id).startsWith('Tool said: Sent to telegram chat 501'));
    fake.enqueue({
      kind: 'tool',
      tool: 'steward_chat_send',
      args: { provider: 'telegram', channel_id: '999', message: 'to a stranger' },
      after: (result) => `Second tool said: ${result}`,
    });
    api.userWrites(ADA, 'now write to 999');
    await api.waitFor(() => lastText(ADA.id).includes('Second tool said:'), 60_000);
    expect(lastText(ADA.id)).toMatch(/may not write to telegram chat 999/);
    expect(api.chatTexts(999)).toEqual([]);
    const offered = fake.chatRequests().at(-1)?.tools ?? [];
    expect(offered).toContain('steward_chat_send');
  });

  it('delivers a 10,000-character schedule output as three messages, once, and records it', async () => {
    await t.services.scripts.create(
      'report.star',
      'def main():\n    return "\\n".join(["row %d %s" % (1000 + i, "x" * 41) for i in range(200)])\n',
      'admin',
    );
    await t.services.scripts.approve('report.star', 'admin');
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/schedules',
      headers: auth,
      payload: {
        name: 'report',
        cron_expr: '0 0 1 1 *',
        type: 'script',
        script_name: 'report.star',
        output_target: { provider: 'telegram', channel_id: String(ADA.id) },
      },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    const sentBefore = api.messages.length;
    // A 429 on the way: the send waits out retry_after and goes on.
    api.failNext('sendMessage', {
      code: 429,
      description: 'Too Many Requests: retry after 1',
      retry_after: 1,
    });
    await t.app.inject({ method: 'POST', url: `/api/schedules/${id}/run`, headers: auth });
    const entry = await waitForDelivery(t, id, auth);
    expect(entry.delivery).toEqual({ status: 'delivered' });
    const sent = api.messages.slice(sentBefore).filter((m) => m.chat_id === String(ADA.id));
    expect(sent, JSON.stringify({ sent, entry }).slice(0, 3000)).toHaveLength(3);
    expect(sent.every((m) => m.text.length <= 4096)).toBe(true);
    // The cuts fall on spaces, which no piece keeps.
    const squeeze = (text: string) => text.replace(/\s/g, '');
    expect(squeeze(sent.map((m) => m.text).join(''))).toBe(squeeze(`report\n${entry.output}`));
    expect(entry.output.length).toBeGreaterThan(10_000);
  });
});

describe('per_chat session scope', { timeout: 180_000 }, () => {
  it('gives each chat its own engine session, never the active one', async () => {
    const fake = await startFakeModel();
    const api = await startTelegramStandIn();
    const home = mkdtempSync(path.join(os.tmpdir(), 'steward-e2e-perchat-'));
    const t = await createTestApp(
      {
        'engine.command': [opencodeBin],
        'engine.config': {
          provider: mockProvider(fake.baseURL),
          model: 'mock/echo',
          small_model: 'mock/echo',
        },
        'engine.env': isolatedEnv(home),
        'log.level': 'error',
        'chat.session_scope': 'per_chat',
        'chat.telegram': {
          token_secret: 'TELEGRAM_TOKEN',
          allow: [ADA.id, 502],
          api_root: api.apiRoot,
        },
      },
      'e2e-perchat',
      undefined,
      { superviseEngine: true },
    );
    try {
      await t.services.secrets.set('TELEGRAM_TOKEN', api.token);
      await t.services.engine.start();
      await t.services.engine.hub.whenConnected(30_000);
      t.services.gateway?.start();
      const active = (await t.services.engine.sessions.create()).id;
      fake.setFallback({ kind: 'text', text: 'noted' });
      api.userWrites(ADA, 'remember: I am Ada');
      await api.waitFor(() => api.chatTexts(ADA.id).at(-1) === 'noted', 60_000);
      api.userWrites({ id: 502, first_name: 'Bob' }, 'who am I?');
      await api.waitFor(() => api.chatTexts(502).at(-1) === 'noted', 60_000);
      api.userWrites(ADA, '/status');
      const adaStatus = await api.waitFor(
        () => api.chatTexts(ADA.id).find((x) => x.startsWith('Session ')),
        20_000,
      );
      api.userWrites({ id: 502, first_name: 'Bob' }, '/status');
      const bobStatus = await api.waitFor(
        () => api.chatTexts(502).find((x) => x.startsWith('Session ')),
        20_000,
      );
      const idOf = (status: string) => /^Session (\S+)/.exec(status)?.[1];
      expect(idOf(adaStatus)).toMatch(/^ses_/);
      expect(idOf(bobStatus)).toMatch(/^ses_/);
      expect(idOf(adaStatus)).not.toBe(idOf(bobStatus));
      expect([idOf(adaStatus), idOf(bobStatus)]).not.toContain(active);
      expect(await t.services.engine.sessions.activeSessionId()).toBe(active);
      // Bob's turn carried none of Ada's words.
      const bobTurn = fake.chatRequests().find((r) => r.userText === 'who am I?');
      expect(JSON.stringify(bobTurn?.body.messages)).not.toContain('I am Ada');
    } finally {
      await t.services.gateway?.stop();
      await t.close();
      await api.close();
      await fake.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
