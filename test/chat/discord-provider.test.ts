import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiscordProvider } from '../../src/chat/discord-provider.js';
import type { InboundAction, InboundMessage } from '../../src/chat/provider.js';
import { ChatSendError } from '../../src/errors/chat-errors.js';
import { createLogger } from '../../src/log/logger.js';
import { startDiscordStandIn, type DiscordStandIn } from '../support/discord-stand-in.js';

const ADA = { id: '400000000000000001', username: 'ada' };
const GUILD_CHANNEL = '500000000000000001';

describe('Discord provider (discord.js against the stand-in)', { timeout: 30_000 }, () => {
  let discord: DiscordStandIn;
  const provider = () =>
    createDiscordProvider({
      token: discord.token,
      apiRoot: discord.apiRoot,
      channels: [GUILD_CHANNEL],
      users: [ADA.id],
      redact: (text) => text.replaceAll(discord.token, '[REDACTED]'),
      log: createLogger('silent'),
    });

  beforeAll(async () => {
    discord = await startDiscordStandIn([GUILD_CHANNEL, '500000000000000099']);
  });
  afterAll(async () => {
    await discord?.close();
  });

  it("sends to an allowed user's DM, edits, shows typing, and never pings anyone", async () => {
    const p = provider();
    const id = await p.send(ADA.id, 'hello @everyone', {
      buttons: [{ label: 'Approve', data: 'ap:1' }],
    });
    const dm = discord.messages.find((m) => m.id === id)!;
    expect(dm.content).toBe('hello @everyone');
    expect(dm.buttons).toEqual([{ label: 'Approve', custom_id: 'ap:1' }]);
    const post = discord.calls.find((c) => c.method === 'POST' && c.path.endsWith('/messages'));
    expect(post?.body.allowed_mentions).toEqual({ parse: [] });
    await p.edit(ADA.id, id, 'decided');
    expect(discord.texts(dm.channel_id)).toEqual(['decided']);
    expect(dm.buttons).toEqual([]);
    await p.typing(GUILD_CHANNEL);
    expect(discord.calls.some((c) => c.path === `/channels/${GUILD_CHANNEL}/typing`)).toBe(true);
  });

  it("waits out a 429's retry_after, and reports a refusal as not sent", async () => {
    const p = provider();
    discord.failNext('POST /channels/:id/messages', { status: 429, retryAfter: 1 });
    const started = Date.now();
    await p.send(GUILD_CHANNEL, 'after the limit');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(discord.texts(GUILD_CHANNEL)).toContain('after the limit');
    discord.failNext('POST /channels/:id/messages', { status: 404, message: 'Unknown Channel' });
    const err = (await p.send(GUILD_CHANNEL, 'x').catch((e: unknown) => e)) as ChatSendError;
    expect(err).toBeInstanceOf(ChatSendError);
    expect(err.details).toEqual({ sent: false, permanent: true });
    expect(err.message).not.toContain(discord.token);
  });

  it('receives DMs, mentions in configured channels and button taps over the gateway', async () => {
    const p = provider();
    const got: InboundMessage[] = [];
    const taps: InboundAction[] = [];
    await p.start({ message: (m) => got.push(m), action: (a) => taps.push(a) });
    expect(discord.identified()).toBe(1);
    const dm = discord.userWrites(ADA, 'hi bot');
    await discord.waitFor(() => got.length === 1);
    expect(got[0]).toEqual({
      provider: 'discord',
      chatId: dm,
      userId: ADA.id,
      userName: 'ada',
      text: 'hi bot',
    });
    discord.userWritesIn('500000000000000099', ADA, `<@${discord.botId}> not here`);
    discord.userWritesIn(GUILD_CHANNEL, ADA, 'no mention, no answer');
    discord.userWritesIn(GUILD_CHANNEL, ADA, `<@${discord.botId}> status please`);
    await discord.waitFor(() => got.length === 2);
    expect(got[1]).toMatchObject({ chatId: GUILD_CHANNEL, text: 'status please' });

    const id = await p.send(dm, 'choose', { buttons: [{ label: 'Reject', data: 'rj:7' }] });
    const message = discord.messages.find((m) => m.id === id)!;
    discord.userTaps(ADA, message, 'rj:7');
    await discord.waitFor(() => taps.length === 1);
    expect(taps[0]).toMatchObject({
      provider: 'discord',
      chatId: dm,
      userId: ADA.id,
      messageId: id,
      data: 'rj:7',
    });
    await taps[0]?.answer('Reply with the reason.');
    expect(discord.interactionReplies.at(-1)).toMatchObject({
      content: 'Reply with the reason.',
      flags: 64,
    });
    discord.userWrites(ADA, 'because', id);
    await discord.waitFor(() => got.length === 3);
    expect(got[2]?.replyTo).toBe(id);
    await p.stop();
    expect(p.status().state).toBe('stopped');
  });
});
