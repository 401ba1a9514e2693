import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InboundAction, InboundMessage } from '../../src/chat/provider.js';
import { createSlackProvider } from '../../src/chat/slack-provider.js';
import { ChatSendError } from '../../src/errors/chat-errors.js';
import { createLogger } from '../../src/log/logger.js';
import { dmOf, startSlackStandIn, type SlackStandIn } from '../support/slack-stand-in.js';

describe('Slack provider (Bolt in Socket Mode against the stand-in)', { timeout: 30_000 }, () => {
  let slack: SlackStandIn;
  const provider = () =>
    createSlackProvider({
      botToken: slack.botToken,
      appToken: slack.appToken,
      apiUrl: slack.apiUrl,
      channels: [],
      redact: (text) => text.replaceAll(slack.botToken, '[REDACTED]'),
      log: createLogger('silent'),
    });

  beforeAll(async () => {
    slack = await startSlackStandIn();
  });
  afterAll(async () => {
    await slack?.close();
  });

  it('posts and updates plain text with markup escaped, and buttons that edits remove', async () => {
    const p = provider();
    const ts = await p.send('DU1', 'a <b> & *c*', {
      buttons: [{ label: 'Approve', data: 'ap:1' }],
    });
    const posted = slack.calls.find((c) => c.method === 'chat.postMessage');
    expect(posted?.body).toMatchObject({
      channel: 'DU1',
      text: 'a &lt;b&gt; &amp; *c*',
      mrkdwn: 'false',
    });
    expect(slack.messages[0]).toMatchObject({
      ts,
      text: 'a <b> & *c*',
      buttons: [{ text: 'Approve', value: 'ap:1' }],
    });
    await p.edit('DU1', ts, 'decided');
    expect(slack.texts('DU1')).toEqual(['decided']);
    expect(slack.messages[0]?.buttons).toEqual([]);
  });

  it("waits out a 429's Retry-After, and reports a refusal as not sent", async () => {
    const p = provider();
    slack.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    const started = Date.now();
    await p.send('DU2', 'after the limit');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(slack.texts('DU2')).toEqual(['after the limit']);
    slack.failNext('chat.postMessage', { status: 200, error: 'channel_not_found' });
    const err = (await p.send('DU2', 'x').catch((e: unknown) => e)) as ChatSendError;
    expect(err).toBeInstanceOf(ChatSendError);
    expect(err.details).toEqual({ sent: false, permanent: true });
    expect(err.message).toBe('slack chat.postMessage: channel_not_found');
  });

  it('receives DMs and button taps over Socket Mode, acknowledging each envelope', async () => {
    const p = provider();
    const got: InboundMessage[] = [];
    const taps: InboundAction[] = [];
    await p.start({ message: (m) => got.push(m), action: (a) => taps.push(a) });
    await slack.waitFor(() => slack.connections() === 1);
    slack.userWrites('U77', 'hello from slack');
    await slack.waitFor(() => got.length === 1);
    expect(got[0]).toEqual({
      provider: 'slack',
      chatId: dmOf('U77'),
      userId: 'U77',
      userName: 'U77',
      text: 'hello from slack',
    });
    const ts = await p.send(dmOf('U77'), 'pick', { buttons: [{ label: 'Reject', data: 'rj:9' }] });
    const message = slack.messages.find((m) => m.ts === ts)!;
    slack.userTaps('U77', message, 'rj:9');
    await slack.waitFor(() => taps.length === 1);
    expect(taps[0]).toMatchObject({
      provider: 'slack',
      chatId: dmOf('U77'),
      userId: 'U77',
      messageId: ts,
      data: 'rj:9',
    });
    await taps[0]?.answer('Reply with the reason.');
    expect(slack.ephemeral).toContainEqual({
      channel: dmOf('U77'),
      user: 'U77',
      text: 'Reply with the reason.',
    });
    slack.userWrites('U77', 'in a thread', ts);
    await slack.waitFor(() => got.length === 2);
    expect(got[1]?.replyTo).toBe(ts);
    expect(slack.acks.length).toBeGreaterThanOrEqual(3);
    await p.stop();
    await slack.waitFor(() => slack.connections() === 0);
  });
});
