import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { telegramWebhookSecret } from '../../../src/chat/telegram-webhook-secret.js';
import { freePort } from '../../../src/store/embedded-redis.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { startTelegramStandIn, type TelegramStandIn } from '../../support/telegram-stand-in.js';

/**
 * Telegram in webhook mode: the gateway's leader registers the webhook with a secret derived from
 * the token; Telegram (the stand-in) posts updates to an API process, which checks the secret and
 * queues them; the leader handles them. Nothing polls.
 */
const ADA = { id: 654, first_name: 'Ada' };
const GROUP = -1001000000654;

describe('Telegram webhook mode', { timeout: 30_000 }, () => {
  let api: TelegramStandIn;
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    api = await startTelegramStandIn();
    port = await freePort();
    t = await createTestApp(
      {
        'chat.telegram': {
          token_secret: 'TELEGRAM_TOKEN',
          allow: [ADA.id],
          groups: [GROUP],
          api_root: api.apiRoot,
          webhook_url: `http://127.0.0.1:${port}/api/chat/telegram/webhook`,
        },
      },
      'tg-webhook',
    );
    await t.services.secrets.set('TELEGRAM_TOKEN', api.token);
    await t.app.listen({ host: '127.0.0.1', port });
    t.services.gateway?.start();
    await api.waitFor(() => api.webhook, 20_000);
  });
  afterAll(async () => {
    await t?.services.gateway?.stop();
    await t?.close();
    await api?.close();
  });

  it('registers the webhook with a secret derived from the token, and never polls', () => {
    expect(api.webhook).toMatchObject({
      url: `http://127.0.0.1:${port}/api/chat/telegram/webhook`,
      secret: telegramWebhookSecret(api.token),
    });
    expect(api.webhook?.secret).not.toContain(api.token);
    expect(api.calls.some((c) => c.method === 'getUpdates')).toBe(false);
  });

  it('handles an update Telegram posts: a stranger gets a pairing code', async () => {
    api.userWrites({ id: 321, first_name: 'Web' }, 'hello over the webhook');
    const notice = await api.waitFor(() => api.chatTexts(321)[0], 15_000);
    expect(notice).toMatch(/pairing code [A-Z0-9]{8}/);
    expect(api.webhook?.answers).toEqual([200]);
  });

  it('is in the OpenAPI document, without a bearer token', async () => {
    const doc = (await (await fetch(`http://127.0.0.1:${port}/api/openapi.json`)).json()) as {
      paths: Record<string, { post?: { security?: unknown[] } }>;
    };
    expect(doc.paths['/api/chat/telegram/webhook']?.post?.security).toEqual([]);
  });

  it('refuses a call without the right secret, and a body that is not an update', async () => {
    const url = `http://127.0.0.1:${port}/api/chat/telegram/webhook`;
    const update = {
      update_id: 99,
      message: {
        message_id: 1,
        date: 0,
        chat: { id: 5, type: 'private' },
        from: { id: 5, is_bot: false, first_name: 'X' },
        text: 'x',
      },
    };
    const post = (headers: Record<string, string>, body: unknown) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const none = await post({}, update);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: string }).error).toBe('unauthorized');
    expect((await post({ 'x-telegram-bot-api-secret-token': 'guess' }, update)).status).toBe(401);
    const secret = { 'x-telegram-bot-api-secret-token': telegramWebhookSecret(api.token) };
    expect((await post(secret, { hello: 1 })).status).toBe(400);
    await new Promise((r) => setTimeout(r, 500));
    expect(api.chatTexts(5)).toEqual([]);
  });

  it('acts on a signed update once, however often it is posted', async () => {
    const url = `http://127.0.0.1:${port}/api/chat/telegram/webhook`;
    const update = {
      update_id: 777_001,
      message: {
        message_id: 9001,
        date: Math.floor(Date.now() / 1000),
        chat: { id: ADA.id, type: 'private' },
        from: { id: ADA.id, is_bot: false, first_name: ADA.first_name },
        text: '/status',
      },
    };
    const post = () =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-telegram-bot-api-secret-token': telegramWebhookSecret(api.token),
        },
        body: JSON.stringify(update),
      });
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(200);
    await api.waitFor(() => api.chatTexts(ADA.id).length > 0, 15_000);
    // A later message is answered: by then the replay has been taken off the queue too.
    api.userWrites(ADA, '/status');
    await api.waitFor(() => api.chatTexts(ADA.id).length >= 2, 15_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(api.chatTexts(ADA.id)).toHaveLength(2);
  });

  it('answers a configured group only when the bot is mentioned', async () => {
    api.userWritesInGroup(GROUP, ADA, '/status');
    api.userWritesInGroup(-1001000000999, ADA, '/status@steward_test_bot');
    api.userWritesInGroup(GROUP, ADA, '/status@steward_test_bot');
    await api.waitFor(() => api.chatTexts(GROUP).length > 0, 15_000);
    api.userWrites(ADA, '/status');
    await api.waitFor(() => api.chatTexts(ADA.id).length >= 3, 15_000);
    expect(api.chatTexts(GROUP)).toHaveLength(1);
    expect(api.chatTexts(GROUP)[0]).toMatch(/session|Model/);
    expect(api.chatTexts(-1001000000999)).toEqual([]);
  });
});
