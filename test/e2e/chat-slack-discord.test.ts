import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningWorkers } from '../../src/workers/start.js';
import { createTestApp, startTestWorkers, type TestApp } from '../support/app.js';
import { adminToken, authHeader } from '../support/auth.js';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';
import { isolatedEnv, mockProvider, opencodeBin } from '../support/opencode.js';
import { startDiscordStandIn, type DiscordStandIn } from '../support/discord-stand-in.js';
import { dmOf, startSlackStandIn, type SlackStandIn } from '../support/slack-stand-in.js';
import { startTelegramStandIn, type TelegramStandIn } from '../support/telegram-stand-in.js';
import { waitForDelivery } from '../support/wait.js';

/**
 * Slack, Discord and Telegram through one gateway, end to end with the real OpenCode and the fake model:
 * a Slack DM gets a streamed, redacted reply (chat.update edits), a stranger a pairing code, and
 * a schedule's long output lands in a Slack channel once, split at Slack's limit.
 */
const SECRET = 'sk-slack-5e2b7c9d1a4f8e63';
const ALLOWED = 'U0ALLOWED';
const CHANNEL = 'C0REPORTS';
const DISCORD_USER = { id: '400000000000000001', username: 'ada' };
const DISCORD_CHANNEL = '500000000000000001';

describe('chat from Slack and Discord through the gateway', { timeout: 180_000 }, () => {
  let fake: FakeModel;
  let slack: SlackStandIn;
  let telegram: TelegramStandIn;
  let discord: DiscordStandIn;
  let t: TestApp;
  let workers: RunningWorkers;
  let auth: Record<string, string>;
  const engineHome = mkdtempSync(path.join(os.tmpdir(), 'steward-e2e-slack-'));

  beforeAll(async () => {
    fake = await startFakeModel();
    slack = await startSlackStandIn();
    telegram = await startTelegramStandIn();
    discord = await startDiscordStandIn([DISCORD_CHANNEL]);
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
        'chat.slack': {
          bot_token_secret: 'SLACK_BOT_TOKEN',
          app_token_secret: 'SLACK_APP_TOKEN',
          allow: [ALLOWED],
          channels: [CHANNEL],
          api_url: slack.apiUrl,
        },
        'chat.telegram': {
          token_secret: 'TELEGRAM_TOKEN',
          allow: [501],
          api_root: telegram.apiRoot,
        },
        'chat.discord': {
          token_secret: 'DISCORD_TOKEN',
          allow: [DISCORD_USER.id],
          channels: [DISCORD_CHANNEL],
          api_root: discord.apiRoot,
        },
      },
      'e2e-slack',
      undefined,
      { superviseEngine: true },
    );
    await t.services.secrets.set('SLACK_BOT_TOKEN', slack.botToken);
    await t.services.secrets.set('SLACK_APP_TOKEN', slack.appToken);
    await t.services.secrets.set('TELEGRAM_TOKEN', telegram.token);
    await t.services.secrets.set('DISCORD_TOKEN', discord.token);
    await t.services.secrets.set('SLACK_KEY', SECRET);
    await t.services.redaction.refresh();
    await t.services.engine.start();
    await t.services.engine.hub.whenConnected(30_000);
    workers = await startTestWorkers(t);
    t.services.gateway?.start();
    auth = authHeader(await adminToken(t));
    await slack
      .waitFor(() => slack.connections() === 1, 30_000)
      .catch((err: Error) => {
        throw new Error(
          `${err.message}: ${JSON.stringify(t.services.gateway?.statuses())} ${JSON.stringify(slack.calls.map((c) => c.method))}`,
        );
      });
    await telegram.waitFor(() => telegram.calls.some((c) => c.method === 'getUpdates'), 30_000);
    await discord.waitFor(() => discord.identified() === 1, 30_000);
  }, 180_000);

  afterAll(async () => {
    await t?.services.gateway?.stop();
    await workers?.close();
    await t?.close();
    await slack?.close();
    await telegram?.close();
    await discord?.close();
    await fake?.close();
    rmSync(engineHome, { recursive: true, force: true });
  });

  it('answers a Slack DM with a message updated as the reply streams, the secret redacted', async () => {
    const reply = `The <key> is ${SECRET} & more. ${'Streaming words arrive. '.repeat(6)}`;
    const dm = dmOf(ALLOWED);
    fake.enqueue({
      kind: 'text',
      text: reply,
      chunks: 8,
      delayMs: 700,
      beforeLast: () => slack.waitFor(() => slack.texts(dm).length > 0, 60_000),
    });
    slack.userWrites(ALLOWED, 'what is the key?');
    await slack
      // The whole reply: its first part alone may already end with those words.
      .waitFor(
        () => slack.texts(dm).at(-1)?.includes('Streaming words arrive. '.repeat(6).trim()),
        60_000,
      )
      .catch((err: Error) => {
        throw new Error(`${err.message}: ${JSON.stringify(slack.messages)}`);
      });
    const [message] = slack.messages.filter((m) => m.channel === dm);
    expect(message?.edits.length).toBeGreaterThan(0);
    expect(slack.texts(dm).at(-1)).toContain('The <key> is [REDACTED:SLACK_KEY] & more.');
    expect(JSON.stringify(slack.calls)).not.toContain(SECRET);
  });

  it('serves Telegram from the same gateway, and gives a Slack stranger a pairing code', async () => {
    fake.enqueue({ kind: 'text', text: 'hello telegram' });
    telegram.userWrites({ id: 501, first_name: 'Ada' }, 'hi');
    await telegram.waitFor(() => telegram.chatTexts(501).at(-1) === 'hello telegram', 60_000);
    const turns = fake.chatRequests().length;
    slack.userWrites('U0STRANGER', 'let me in');
    const notice = await slack.waitFor(() => slack.texts(dmOf('U0STRANGER'))[0]);
    expect(notice).toMatch(/pairing code [A-Z0-9]{8}/);
    expect(fake.chatRequests().length).toBe(turns);
    const pairings = await t.app.inject({
      method: 'GET',
      url: '/api/chat/pairings',
      headers: auth,
    });
    expect(pairings.json()).toEqual([
      expect.objectContaining({ provider: 'slack', user_id: 'U0STRANGER' }),
    ]);
  });

  it('delivers a schedule output to a Slack channel once, split at 3,000 characters', async () => {
    await t.services.scripts.create(
      'report.star',
      'def main():\n    return "\\n".join(["row %d %s" % (1000 + i, "y" * 40) for i in range(200)])\n',
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
        output_target: { provider: 'slack', channel_id: CHANNEL },
      },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    slack.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    await t.app.inject({ method: 'POST', url: `/api/schedules/${id}/run`, headers: auth });
    const entry = await waitForDelivery(t, id, auth);
    expect(entry?.delivery).toEqual({ status: 'delivered' });
    const sent = slack.messages.filter((m) => m.channel === CHANNEL).map((m) => m.text);
    expect(sent).toHaveLength(4);
    expect(sent.every((text) => text.length <= 3000)).toBe(true);
    const squeeze = (text: string) => text.replace(/\s/g, '');
    expect(squeeze(sent.join(''))).toBe(squeeze(`report\n${entry?.output}`));
  });

  it('answers a Discord DM with a streamed, redacted reply, and delivers to a guild channel once', async () => {
    fake.enqueue({
      kind: 'text',
      text: `Key ${SECRET} for you. ${'More text streams in. '.repeat(5)}`,
      chunks: 6,
      delayMs: 700,
      beforeLast: () => discord.waitFor(() => discord.texts(dm).length > 0, 60_000),
    });
    const dm = discord.userWrites(DISCORD_USER, 'key?');
    await discord.waitFor(
      () => discord.texts(dm).at(-1)?.includes('More text streams in. '.repeat(5).trim()),
      60_000,
    );
    const [message] = discord.messages.filter((m) => m.channel_id === dm);
    expect(message?.edits.length).toBeGreaterThan(0);
    expect(discord.texts(dm).at(-1)).toContain('Key [REDACTED:SLACK_KEY] for you.');
    expect(JSON.stringify(discord.calls)).not.toContain(SECRET);
    expect(discord.calls.some((c) => c.path === `/channels/${dm}/typing`)).toBe(true);

    const created = await t.app.inject({
      method: 'POST',
      url: '/api/schedules',
      headers: auth,
      payload: {
        name: 'report-discord',
        cron_expr: '0 0 1 1 *',
        type: 'script',
        script_name: 'report.star',
        output_target: { provider: 'discord', channel_id: DISCORD_CHANNEL },
      },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    discord.failNext('POST /channels/:id/messages', { status: 429, retryAfter: 1 });
    await t.app.inject({ method: 'POST', url: `/api/schedules/${id}/run`, headers: auth });
    const entry = await waitForDelivery(t, id, auth);
    expect(entry?.delivery).toEqual({ status: 'delivered' });
    const sent = discord.texts(DISCORD_CHANNEL);
    expect(sent.length).toBeGreaterThanOrEqual(6);
    expect(sent.every((text) => text.length <= 2000)).toBe(true);
    const squeeze = (text: string) => text.replace(/\s/g, '');
    expect(squeeze(sent.join(''))).toBe(squeeze(`report-discord\n${entry?.output}`));
  });
});
