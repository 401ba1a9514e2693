import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/chat/provider.js';
import { createTelegramProvider } from '../../src/chat/telegram-provider.js';
import { ChatSendError } from '../../src/errors/chat-errors.js';
import { createLogger } from '../../src/log/logger.js';
import { createChatUpdateClaims } from '../../src/store/chat-update-repository.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';
import { startTelegramStandIn, type TelegramStandIn } from '../support/telegram-stand-in.js';

describe('Telegram provider (grammY against the Bot API stand-in)', { timeout: 30_000 }, () => {
  let api: TelegramStandIn;
  const redact = (text: string) => text.replaceAll(api.token, '[REDACTED]');
  const provider = () =>
    createTelegramProvider({
      token: api.token,
      apiRoot: api.apiRoot,
      redact,
      log: createLogger('silent'),
      pollSeconds: 1,
    });

  beforeAll(async () => {
    api = await startTelegramStandIn();
  });
  afterAll(async () => {
    await api?.close();
  });

  it('sends, edits and shows typing as plain text', async () => {
    const tg = provider();
    const id = await tg.send('42', 'Hello <b>there</b> *you*');
    await tg.edit('42', id, 'Hello again');
    await tg.edit('42', id, 'Hello again'); // not modified: not a failure
    await tg.typing('42');
    expect(api.chatTexts(42)).toEqual(['Hello again']);
    const sent = api.calls.find((c) => c.method === 'sendMessage');
    expect(sent?.body).toMatchObject({ chat_id: '42', text: 'Hello <b>there</b> *you*' });
    expect(sent?.body.parse_mode).toBeUndefined();
    expect(api.calls.some((c) => c.method === 'sendChatAction' && c.body.action === 'typing')).toBe(
      true,
    );
  });

  it("waits out a 429's retry_after and then sends", async () => {
    const tg = provider();
    api.failNext('sendMessage', {
      code: 429,
      description: 'Too Many Requests: retry after 1',
      retry_after: 1,
    });
    const started = Date.now();
    await tg.send('43', 'after the limit');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(api.chatTexts(43)).toEqual(['after the limit']);
    const tries = api.calls.filter((c) => c.method === 'sendMessage' && c.body.chat_id === '43');
    expect(tries).toHaveLength(2);
  });

  it('reports a refusal as not sent (400 permanent, 403 permanent) without the token', async () => {
    const tg = provider();
    api.failNext('sendMessage', { code: 400, description: 'Bad Request: chat not found' });
    const refused = await tg.send('44', 'x').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ChatSendError);
    expect((refused as ChatSendError).details).toEqual({ sent: false, permanent: true });
    expect((refused as Error).message).toBe('telegram sendMessage: Bad Request: chat not found');
    api.failNext('sendMessage', {
      code: 403,
      description: 'Forbidden: bot was blocked by the user',
    });
    const blocked = (await tg.send('44', 'x').catch((e: unknown) => e)) as ChatSendError;
    expect(blocked.details).toEqual({ sent: false, permanent: true });
  });

  it('reports an unreachable API as not sent and never shows the token', async () => {
    const tg = createTelegramProvider({
      token: api.token,
      apiRoot: 'http://127.0.0.1:9',
      redact,
      log: createLogger('silent'),
    });
    const err = (await tg.send('45', 'x').catch((e: unknown) => e)) as ChatSendError;
    expect(err).toBeInstanceOf(ChatSendError);
    expect(err.details.sent).toBe(false);
    expect(err.message).not.toContain(api.token);
  });

  it('receives text messages by long polling, and stops', async () => {
    const tg = provider();
    const got: InboundMessage[] = [];
    await tg.start({ message: (m) => got.push(m), action: () => {} });
    expect(tg.status().state).toBe('running');
    api.userWrites({ id: 501, first_name: 'Ada' }, 'hi bot');
    await api.waitFor(() => got.length === 1);
    expect(got[0]).toEqual({
      provider: 'telegram',
      chatId: '501',
      userId: '501',
      userName: 'Ada',
      text: 'hi bot',
    });
    await tg.stop();
    expect(tg.status().state).toBe('stopped');
    expect(api.polling.conflicts).toBe(0);
  });

  it('answers a group only when it is configured and the message is meant for the bot', async () => {
    const GROUP = -1001000000001;
    const tg = createTelegramProvider({
      token: api.token,
      apiRoot: api.apiRoot,
      redact,
      log: createLogger('silent'),
      pollSeconds: 1,
      groups: [String(GROUP)],
    });
    const got: InboundMessage[] = [];
    await tg.start({ message: (m) => got.push(m), action: () => {} });
    const ada = { id: 501, first_name: 'Ada' };
    const botMessage = Number(await tg.send(String(GROUP), 'an earlier answer'));
    // Not meant for the bot, or in a group nobody configured: dropped.
    api.userWritesInGroup(GROUP, ada, 'lunch at noon?');
    api.userWritesInGroup(GROUP, ada, 'ask @someone_else');
    api.userWritesInGroup(-1001000000002, ada, '@steward_test_bot what is the key?');
    api.userWritesInGroup(-1001000000002, ada, '/status@steward_test_bot');
    // Meant for it, in the configured group.
    api.userWritesInGroup(GROUP, ada, '@steward_test_bot what is\nthe plan?');
    api.userWritesInGroup(GROUP, ada, '/status@steward_test_bot');
    api.userWritesInGroup(GROUP, ada, 'thanks, and then?', botMessage);
    api.userWrites(ada, 'in private');
    await api.waitFor(() => got.some((m) => m.text === 'in private'));
    await tg.stop();
    expect(got.map((m) => [m.chatId, m.text])).toEqual([
      [String(GROUP), 'what is\nthe plan?'],
      [String(GROUP), '/status@steward_test_bot'],
      [String(GROUP), 'thanks, and then?'],
      ['501', 'in private'],
    ]);
  });

  it('handles an update once when it comes again after a failover', async () => {
    const prefix = uniquePrefix('tg-updates');
    const redis = storeRedis(prefix);
    const repo = createChatUpdateClaims(redis);
    const claimed = () =>
      createTelegramProvider({
        token: api.token,
        apiRoot: api.apiRoot,
        redact,
        log: createLogger('silent'),
        pollSeconds: 1,
        claimUpdate: (id) => repo.claimUpdate('telegram', `7000000001:${id}`, 60_000),
      });
    try {
      const first = claimed();
      const got: InboundMessage[] = [];
      await first.start({ message: (m) => got.push(m), action: () => {} });
      api.userWrites({ id: 502, first_name: 'Bo' }, 'do it once');
      await api.waitFor(() => got.length === 1);
      await first.stop();
      // Telegram never heard that the leader handled it: the next poller gets it again.
      api.redeliver(api.lastUpdateId);
      const second = claimed();
      await second.start({ message: (m) => got.push(m), action: () => {} });
      api.userWrites({ id: 502, first_name: 'Bo' }, 'and then this');
      await api.waitFor(() => got.some((m) => m.text === 'and then this'));
      await second.stop();
      expect(got.map((m) => m.text)).toEqual(['do it once', 'and then this']);
    } finally {
      redis.disconnect();
      await dropPrefix(prefix);
    }
  });
});
