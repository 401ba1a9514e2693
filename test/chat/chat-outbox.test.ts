import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatAccess } from '../../src/chat/chat-access.js';
import { createChatOutbox } from '../../src/chat/chat-outbox.js';
import { createTelegramProvider } from '../../src/chat/telegram-provider.js';
import { ChatSendError } from '../../src/errors/chat-errors.js';
import { createLogger } from '../../src/log/logger.js';
import { createChatDeliveryRepository } from '../../src/store/chat-delivery-repository.js';
import { createChatIdentityRepository } from '../../src/store/chat-identity-repository.js';
import { createChatPairingRepository } from '../../src/store/chat-pairing-repository.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';
import { startTelegramStandIn, type TelegramStandIn } from '../support/telegram-stand-in.js';

const SECRET = 'sk-outbox-9d1c7b3e5a2f';
const long = Array.from({ length: 200 }, (_, i) => `row ${1000 + i} ${'x'.repeat(40)}`).join('\n');

describe('chat outbox (Redis claims, Telegram stand-in)', { timeout: 30_000 }, () => {
  const prefix = uniquePrefix('chat-outbox');
  const redis = storeRedis(prefix);
  const repo = createChatDeliveryRepository(redis);
  let api: TelegramStandIn;
  let budget = Infinity;
  const outbox = () =>
    createChatOutbox({
      provider: async () =>
        createTelegramProvider({
          token: api.token,
          apiRoot: api.apiRoot,
          redact: (t) => t,
          log: createLogger('silent'),
        }),
      configured: ['telegram'],
      access: createChatAccess({
        pairings: createChatPairingRepository(redis),
        identities: createChatIdentityRepository(redis),
        allow: { telegram: ['501'] },
      }),
      claims: repo,
      redact: (text) => text.replaceAll(SECRET, '[REDACTED:KEY]'),
      takeSend: async () => budget-- > 0,
    });
  const sentTo = (chat: string) =>
    api.messages.filter((m) => m.chat_id === chat).map((m) => m.text);

  beforeAll(async () => {
    api = await startTelegramStandIn();
  });
  afterAll(async () => {
    await api?.close();
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it('sends redacted text split at 4096, each part once per delivery id', async () => {
    const text = `${long}\nkey ${SECRET}`;
    expect(await outbox().send('telegram', '501', text, { deliveryId: 'run-a' })).toEqual({
      parts: 3,
    });
    expect(await outbox().send('telegram', '501', text, { deliveryId: 'run-a' })).toEqual({
      parts: 3,
    });
    const texts = sentTo('501');
    expect(texts).toHaveLength(3);
    expect(texts.every((t) => t.length <= 4096)).toBe(true);
    expect(texts.at(-1)).toContain('key [REDACTED:KEY]');
  });

  it('resumes after the parts already sent, and stops as unknown at a part whose send was lost', async () => {
    await repo.claimPart('run-b', 0, 60_000);
    await repo.markPartSent('run-b', 0);
    const before = api.messages.length;
    await outbox()
      .send('telegram', '502', long, { deliveryId: 'run-b' })
      .catch(() => {});
    // 502 is not reachable: nothing is claimed or sent for it.
    expect(api.messages.length).toBe(before);
    await outbox().send('telegram', '501', long, { deliveryId: 'run-b' });
    expect(api.messages.length - before).toBe(2);

    await repo.claimPart('run-c', 0, 60_000); // a sender died during part 1
    const err = (await outbox()
      .send('telegram', '501', long, { deliveryId: 'run-c' })
      .catch((e: unknown) => e)) as ChatSendError;
    expect(err).toBeInstanceOf(ChatSendError);
    expect(err.details).toEqual({ sent: 'unknown', permanent: true });
    expect(api.messages.length - before).toBe(2);
  });

  it('frees a part Telegram refused, so a retry sends it', async () => {
    api.failNext('sendMessage', { code: 400, description: 'Bad Request: try later' });
    const err = (await outbox()
      .send('telegram', '501', 'once', { deliveryId: 'run-d' })
      .catch((e: unknown) => e)) as ChatSendError;
    expect(err.details.sent).toBe(false);
    await outbox().send('telegram', '501', 'once', { deliveryId: 'run-d' });
    expect(sentTo('501').filter((t) => t === 'once')).toHaveLength(1);
  });

  it('refuses chats the bot may not reach, and sends nothing past the budget', async () => {
    const refused = (await outbox()
      .send('telegram', '999', 'hi')
      .catch((e: unknown) => e)) as ChatSendError;
    expect(refused.message).toMatch(/may not write to telegram chat 999/);
    budget = 0;
    const spent = (await outbox()
      .send('telegram', '501', 'later', { deliveryId: 'run-e' })
      .catch((e: unknown) => e)) as ChatSendError;
    expect(spent.details).toEqual({ sent: false, permanent: false });
    budget = Infinity;
    await outbox().send('telegram', '501', 'later', { deliveryId: 'run-e' });
    expect(sentTo('501').filter((t) => t === 'later')).toHaveLength(1);
    expect(sentTo('999')).toEqual([]);
  });
});
