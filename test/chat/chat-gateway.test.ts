import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatGateway, type ChatGateway } from '../../src/chat/chat-gateway.js';
import { createStreamRedactor } from '../../src/secrets/stream-redactor.js';
import { createChatRepository } from '../../src/store/chat-repository.js';
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
      repo: createChatRepository(t.ctx.redis),
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
});
