import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatGateway, type ChatGateway } from '../../src/chat/chat-gateway.js';
import { createStreamRedactor } from '../../src/secrets/stream-redactor.js';
import { createChatLeaseRepository } from '../../src/store/chat-lease-repository.js';
import { createChatSessionRepository } from '../../src/store/chat-session-repository.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { startTelegramStandIn, type TelegramStandIn } from '../support/telegram-stand-in.js';

describe('chat gateway', { timeout: 30_000 }, () => {
  let api: TelegramStandIn;
  let t: TestApp;
  let gateway: ChatGateway;

  beforeAll(async () => {
    api = await startTelegramStandIn();
    t = await createTestApp(
      { 'chat.telegram': { token_secret: 'TELEGRAM_TOKEN', api_root: api.apiRoot } },
      'chat-gateway',
    );
    gateway = createChatGateway({
      configured: t.services.chat.configured,
      build: (name) => t.services.chat.build(name),
      retryEveryMs: 200,
      renewMs: 100,
      access: t.services.chat.access,
      lease: createChatLeaseRepository(t.ctx.redis),
      chatSessions: createChatSessionRepository(t.ctx.redis),
      engine: {
        client: t.services.engine.client,
        hub: t.services.engine.hub,
        sessions: t.services.engine.sessions,
        models: t.services.engine.models,
      },
      createRedactor: () => createStreamRedactor(t.services.redaction.current()),
      scope: 'active',
      log: t.ctx.log,
    });
  });
  afterAll(async () => {
    await gateway?.stop();
    await t?.close();
    await api?.close();
  });

  it('leads without a token, and starts the provider once its secret is stored', async () => {
    gateway.start();
    await api.waitFor(() => gateway.isLeader());
    await new Promise((r) => setTimeout(r, 500));
    expect(api.calls).toEqual([]);
    expect(gateway.statuses()).toEqual({});
    await t.services.secrets.set('TELEGRAM_TOKEN', api.token);
    await api.waitFor(() => api.calls.some((c) => c.method === 'getUpdates'), 10_000);
    expect(gateway.statuses()).toEqual({ telegram: { state: 'running' } });
    // Strangers are answered by the provider that started late.
    api.userWrites({ id: 900, first_name: 'Late' }, 'hello');
    expect(await api.waitFor(() => api.chatTexts(900)[0])).toMatch(/pairing code/);
  });

  it('cannot be jammed by strangers: 20 codes wait per provider, the oldest makes room, each stranger is answered once a minute', async () => {
    const strangers = Array.from({ length: 25 }, (_, i) => ({ id: 1000 + i, first_name: `S${i}` }));
    for (const s of strangers) api.userWrites(s, 'let me in');
    await api.waitFor(() => strangers.every((s) => api.chatTexts(s.id).length === 1), 20_000);
    for (const s of strangers) expect(api.chatTexts(s.id)[0]).toMatch(/pairing code [A-Z0-9]{8}/);
    const waiting = await t.services.chat.access.pairings();
    const telegram = waiting.filter((p) => p.provider === 'telegram');
    expect(telegram).toHaveLength(20);
    // The first to ask (the stranger of the first test) was dropped to make room; which of
    // requests made in the same millisecond goes first is not defined.
    expect(telegram.map((p) => p.user_id)).not.toContain('900');

    // A stranger whose code was dropped asks again at once: a new code is stored (the oldest
    // makes room), but nothing is said until a minute has passed since the last answer.
    const ids = new Set(telegram.map((p) => Number(p.user_id)));
    const first = strangers.find((s) => !ids.has(s.id))!;
    api.userWrites(first, 'hello again');
    api.userWrites({ id: 2000, first_name: 'Late' }, 'me too');
    await api.waitFor(() => api.chatTexts(2000).length === 1, 10_000);
    const until = Date.now() + 10_000;
    while (!(await t.services.chat.access.pairings()).some((p) => p.user_id === String(first.id))) {
      if (Date.now() > until) throw new Error('the first stranger has no new code');
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(api.chatTexts(first.id)).toHaveLength(1);
    expect((await t.services.chat.access.pairings()).length).toBe(20);
  });
});
