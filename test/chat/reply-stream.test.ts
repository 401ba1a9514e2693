import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReplyStream } from '../../src/chat/reply-stream.js';
import { createTelegramProvider } from '../../src/chat/telegram-provider.js';
import { createLogger } from '../../src/log/logger.js';
import { startTelegramStandIn, type TelegramStandIn } from '../support/telegram-stand-in.js';

describe('reply stream (Telegram stand-in)', { timeout: 30_000 }, () => {
  let api: TelegramStandIn;
  let chat = 900;
  beforeAll(async () => {
    api = await startTelegramStandIn();
  });
  afterAll(async () => {
    await api?.close();
  });

  function reply(editIntervalMs = 50) {
    const chatId = String(++chat);
    const errors: unknown[] = [];
    const stream = createReplyStream({
      provider: createTelegramProvider({
        token: api.token,
        apiRoot: api.apiRoot,
        redact: (t) => t,
        log: createLogger('silent'),
      }),
      chatId,
      editIntervalMs,
      typingIntervalMs: 1000,
      onError: (err) => errors.push(err),
    });
    return { stream, chatId, errors };
  }

  it('sends the first text and edits it with later text, typing meanwhile', async () => {
    const { stream, chatId, errors } = reply();
    stream.push({ type: 'text', content: 'the answer is ' });
    await new Promise((r) => setTimeout(r, 120));
    stream.push({ type: 'text', content: 'forty-two' });
    stream.push({ type: 'done' });
    await stream.finished;
    const message = api.messages.find((m) => m.chat_id === chatId);
    expect(message?.text).toBe('the answer is ');
    expect(message?.edits).toEqual(['the answer is forty-two']);
    expect(api.calls.some((c) => c.method === 'sendChatAction')).toBe(true);
    expect(errors).toEqual([]);
  });

  it('continues past the platform limit in new messages, cut at line boundaries', async () => {
    const { stream, chatId } = reply();
    const lines = Array.from({ length: 120 }, (_, i) => `line ${i} ${'y'.repeat(60)}`);
    stream.push({ type: 'text', content: lines.join('\n') });
    stream.push({ type: 'done' });
    await stream.finished;
    const texts = api.chatTexts(chatId);
    expect(texts.length).toBe(3);
    expect(texts.every((t) => t.length <= 4096)).toBe(true);
    expect(texts.join('\n')).toBe(lines.join('\n'));
  });

  it('ends with the error line, or the line a failure gives', async () => {
    const first = reply();
    first.stream.push({ type: 'text', content: 'partial' });
    first.stream.push({ type: 'error', content: 'Engine error: overloaded' });
    await first.stream.finished;
    expect(api.chatTexts(first.chatId)).toEqual(['partial\n\nEngine error: overloaded']);

    const second = reply();
    second.stream.fail('(the reply timed out)');
    await second.stream.finished;
    expect(api.chatTexts(second.chatId)).toEqual(['(the reply timed out)']);
  });

  it('says so when the assistant sent no text', async () => {
    const { stream, chatId } = reply();
    stream.push({ type: 'done' });
    await stream.finished;
    expect(api.chatTexts(chatId)).toEqual(['(the assistant sent no text)']);
  });
});
