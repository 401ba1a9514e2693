import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatSendError } from '../../src/errors/chat-errors.js';
import type { RunningWorkers } from '../../src/workers/start.js';
import { createTestApp, startTestWorkers, type TestApp } from '../support/app.js';
import { adminToken, authHeader } from '../support/auth.js';
import { startDiscordStandIn, type DiscordStandIn } from '../support/discord-stand-in.js';
import { startSlackStandIn, type SlackStandIn } from '../support/slack-stand-in.js';
import { startTelegramStandIn, type TelegramStandIn } from '../support/telegram-stand-in.js';
import { waitForDelivery } from '../support/wait.js';

/**
 * Schedule output in chat, through the real script workers (DESIGN "schedule output as chat
 * text", "schedule targets"): a script's string is delivered as that text under the schedule's
 * name, other values as indented JSON, and a target the administrator chose is written to even
 * when no allow-list or `channels` entry names it (those still bound the AI's `chat_send`).
 */
const ADA = 501;
const SLACK_CHANNEL = 'C0REPORTS';
const SLACK_ELSEWHERE = 'C0ELSEWHERE';
const DISCORD_CHANNEL = '500000000000000001';
const DISCORD_ELSEWHERE = '500000000000000999';

describe('schedule output delivered to chats', { timeout: 120_000 }, () => {
  let telegram: TelegramStandIn;
  let slack: SlackStandIn;
  let discord: DiscordStandIn;
  let t: TestApp;
  let workers: RunningWorkers;
  let auth: Record<string, string>;

  beforeAll(async () => {
    telegram = await startTelegramStandIn();
    slack = await startSlackStandIn();
    discord = await startDiscordStandIn([DISCORD_CHANNEL]);
    t = await createTestApp(
      {
        'admin.rate_limit.api_per_minute': 100_000,
        'chat.telegram': {
          token_secret: 'TELEGRAM_TOKEN',
          allow: [ADA],
          api_root: telegram.apiRoot,
        },
        'chat.slack': {
          bot_token_secret: 'SLACK_BOT_TOKEN',
          app_token_secret: 'SLACK_APP_TOKEN',
          channels: [SLACK_CHANNEL],
          api_url: slack.apiUrl,
        },
        'chat.discord': {
          token_secret: 'DISCORD_TOKEN',
          channels: [DISCORD_CHANNEL],
          api_root: discord.apiRoot,
        },
      },
      'sched-chat',
    );
    await t.services.secrets.set('TELEGRAM_TOKEN', telegram.token);
    await t.services.secrets.set('SLACK_BOT_TOKEN', slack.botToken);
    await t.services.secrets.set('SLACK_APP_TOKEN', slack.appToken);
    await t.services.secrets.set('DISCORD_TOKEN', discord.token);
    workers = await startTestWorkers(t);
    auth = authHeader(await adminToken(t));
  }, 60_000);

  afterAll(async () => {
    await workers?.close();
    await t?.close();
    await telegram?.close();
    await slack?.close();
    await discord?.close();
  });

  /** Stores and approves `source`, runs it once on a schedule to `target`, and waits. */
  async function deliver(
    name: string,
    source: string,
    target: { provider: string; channel_id: string },
  ) {
    await t.services.scripts.create(`${name}.star`, source, 'admin');
    await t.services.scripts.approve(`${name}.star`, 'admin');
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/schedules',
      headers: auth,
      payload: {
        name,
        cron_expr: '0 0 1 1 *',
        type: 'script',
        script_name: `${name}.star`,
        output_target: target,
      },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    await t.app.inject({ method: 'POST', url: `/api/schedules/${id}/run`, headers: auth });
    const entry = await waitForDelivery(t, id, auth);
    const schedule = (
      await t.app.inject({ method: 'GET', url: `/api/schedules/${id}`, headers: auth })
    ).json() as { last_run_output: string };
    return { entry, lastOutput: schedule.last_run_output };
  }

  it('delivers a string result as its text, under the name on the first line of the one message', async () => {
    const text = 'Line one\nLine two: ünï "quoted" \\ back';
    const { entry, lastOutput } = await deliver(
      'greeting',
      'def main():\n    return "Line one\\nLine two: ünï \\"quoted\\" \\\\ back"\n',
      { provider: 'telegram', channel_id: String(ADA) },
    );
    expect(entry.delivery).toEqual({ status: 'delivered' });
    expect(lastOutput).toBe(text);
    expect(entry.output).toBe(text);
    expect(telegram.chatTexts(ADA)).toEqual([`greeting\n${text}`]);
  });

  it('delivers a dict or a list as JSON indented by two spaces, the same text in last_run_output', async () => {
    const dict = await deliver(
      'totals',
      'def main():\n    return {"count": 2, "items": ["a", "b"]}\n',
      { provider: 'telegram', channel_id: String(ADA) },
    );
    const indented = JSON.stringify({ count: 2, items: ['a', 'b'] }, null, 2);
    expect(dict.lastOutput).toBe(indented);
    expect(dict.entry.output).toBe(indented);
    expect(telegram.chatTexts(ADA).at(-1)).toBe(`totals\n${indented}`);

    const list = await deliver('rows', 'def main():\n    return [1, 2]\n', {
      provider: 'telegram',
      channel_id: String(ADA),
    });
    expect(list.lastOutput).toBe('[\n  1,\n  2\n]');
    expect(telegram.chatTexts(ADA).at(-1)).toBe('rows\n[\n  1,\n  2\n]');
  });

  it('never sends the name as a message of its own before a long unbroken text', async () => {
    const before = telegram.chatTexts(ADA).length;
    const { entry } = await deliver('blob', 'def main():\n    return "x" * 6000\n', {
      provider: 'telegram',
      channel_id: String(ADA),
    });
    expect(entry.delivery).toEqual({ status: 'delivered' });
    const sent = telegram.chatTexts(ADA).slice(before);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/^blob\nx{100}/);
    expect(sent.join('')).toBe(`blob\n${'x'.repeat(6000)}`);
  });

  it.each([
    ['slack', SLACK_ELSEWHERE, () => slack.texts(SLACK_ELSEWHERE)],
    ['discord', DISCORD_ELSEWHERE, () => discord.texts(DISCORD_ELSEWHERE)],
    ['telegram', '-1001234567890', () => telegram.chatTexts('-1001234567890')],
  ] as const)(
    'delivers to a %s channel the administrator chose though no channels or allow entry names it',
    async (provider, channel, texts) => {
      const { entry } = await deliver(`to-${provider}`, 'def main():\n    return "hello"\n', {
        provider,
        channel_id: channel,
      });
      expect(entry.delivery).toEqual({ status: 'delivered' });
      expect(texts()).toEqual([`to-${provider}\nhello`]);
    },
  );

  it("still refuses the AI's chat_send to a chat no allow-list or channels entry names", async () => {
    for (const [provider, channel] of [
      ['slack', SLACK_ELSEWHERE],
      ['discord', DISCORD_ELSEWHERE],
      ['telegram', '-1001234567890'],
    ] as const) {
      const sending = t.services.chat.outbox.send(provider, channel, 'from the AI');
      await expect(sending).rejects.toBeInstanceOf(ChatSendError);
      await expect(sending).rejects.toThrow(/may not write/);
    }
    await expect(t.services.chat.outbox.send('slack', SLACK_CHANNEL, 'hi')).resolves.toEqual({
      parts: 1,
    });
    expect(slack.texts(SLACK_ELSEWHERE)).not.toContain('from the AI');
  });
});
