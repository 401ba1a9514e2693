import type { Browser, BrowserContext, Page, WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatAccess } from '../../src/chat/chat-access.js';
import { createChatIdentityRepository } from '../../src/store/chat-identity-repository.js';
import { createChatPairingRepository } from '../../src/store/chat-pairing-repository.js';
import { loginApi, setupAdmin, TEST_ADMIN, type AdminApi } from '../support/admin-api.js';
import {
  expectAccessible,
  launchChromium,
  screenshot,
  startSteward,
  type RunningSteward,
} from '../support/browser.js';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';
import { unreachableByTab } from '../support/keyboard.js';
import { storeRedis } from '../support/redis.js';

/**
 * Every screen of the web UI on a desktop (1280 px) and a phone (390 px), filled with what makes
 * screens overflow: long names and lines, a long run output, a long AI reply with a Markdown
 * table and an unbroken line. On each: its title, nothing wider than the viewport, every control
 * reachable with Tab, no serious or critical axe violation, and a screenshot to look at
 * (test/ui/screenshots/screen-*.png).
 */
const UNBROKEN = 'x'.repeat(600);
const AI_REPLY = [
  'Here is the **summary** you asked for.',
  '',
  '| Script | Runs | State |',
  '|---|---|---|',
  '| greet.star | 12 | approved |',
  '| long-output.star | 3 | pending |',
  '',
  UNBROKEN,
  '',
  ...Array.from({ length: 60 }, (_, i) => `${i + 1}. a point worth making about item ${i + 1}`),
].join('\n');

const GREET = [
  '# @description: greets someone by name, with a description long enough to wrap on a phone',
  '# @author: admin',
  '# @secrets: GREETING_KEY_WITH_A_RATHER_LONG_NAME -> api.example.com',
  'def main():',
  `    print("${'y'.repeat(300)}")`,
  '    return {"greeting": "hello " + args.get("name", "world")}',
  '',
].join('\n');
const LONG = [
  '# @description: returns a long text',
  'def main():',
  '    lines = []',
  '    for i in range(120):',
  '        lines.append("line %d: %s" % (i + 1, "data " * 8))',
  `    lines.append("${UNBROKEN}")`,
  '    return "\\n".join(lines)',
  '',
].join('\n');

interface Screen {
  name: string;
  path: string;
  /** A heading that says the screen has loaded. */
  heading: string | RegExp;
  /** The document title. */
  title: string;
}

describe('every screen on a desktop and a phone', { timeout: 300_000 }, () => {
  let fake: FakeModel;
  let steward: RunningSteward;
  let browser: Browser;
  let api: AdminApi;
  let scheduleId = '';
  let sessionId = '';
  const screens: Screen[] = [];

  beforeAll(async () => {
    fake = await startFakeModel();
    fake.setFallback({ kind: 'text', text: 'ok' });
    steward = await startSteward(fake.baseURL, {
      admin: { rate_limit: { api_per_minute: 5000, login_per_minute: 100 } },
      chat: { telegram: { token_secret: 'TELEGRAM_TOKEN', api_root: 'http://127.0.0.1:9' } },
    });
    await setupAdmin(steward.base);
    api = await loginApi(steward.base);
    for (const [name, source] of [
      ['greet.star', GREET],
      ['long-output.star', LONG],
    ] as const) {
      const made = await api('POST', '/api/scripts', { name, source });
      expect(made.status).toBe(201);
      expect((await api('POST', `/api/scripts/${name}/approve`)).status).toBe(200);
    }
    expect(
      (await api('POST', '/api/scripts/greet.star/test', { args: { name: 'Ada' } })).status,
    ).toBe(200);
    // A change waiting for review.
    const changed = await api('PUT', '/api/scripts/greet.star', {
      source: GREET.replace('"hello "', '"good morning "'),
    });
    expect(changed.status).toBe(200);
    expect((await api('POST', '/api/secrets/UNUSED_BUT_SET', { value: 'v-1' })).status).toBe(200);
    const schedule = await api('POST', '/api/schedules', {
      name: 'a schedule whose name is long enough to wrap',
      type: 'script',
      script_name: 'long-output.star',
      cron_expr: '0 0 1 1 *',
      timezone: 'Europe/Berlin',
      enabled: true,
    });
    expect(schedule.status).toBe(201);
    scheduleId = schedule.body.id as string;
    expect((await api('POST', `/api/schedules/${scheduleId}/run`)).status).toBe(200);
    // expect.poll is for tests, not hooks: wait for the run by hand.
    for (const until = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 250))) {
      const status = (await api('GET', `/api/schedules/${scheduleId}`)).body.last_run_status;
      if (status === 'success') break;
      if ((status && status !== 'running') || Date.now() > until)
        throw new Error(`the schedule's run: ${String(status)}`);
    }
    const redis = storeRedis(steward.prefix);
    try {
      const access = createChatAccess({
        pairings: createChatPairingRepository(redis),
        identities: createChatIdentityRepository(redis),
        allow: {},
      });
      await access.requestPairing({
        provider: 'telegram',
        chatId: '424242',
        userId: '424242',
        userName: 'Grace with a long display name',
        text: 'hello?',
      });
    } finally {
      redis.disconnect();
    }
    await steward.engineUp();
    browser = await launchChromium();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await steward?.stop();
    await fake?.close();
  });

  async function open(width: number): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({
      baseURL: steward.base,
      viewport: { width, height: width < 600 ? 844 : 860 },
      reducedMotion: 'reduce',
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto('/login');
    await page.getByLabel('Username').fill(TEST_ADMIN.username);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(TEST_ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    return { context, page };
  }

  it('a session with a long AI reply (made through the chat screen)', async () => {
    const { context, page } = await open(1280);
    try {
      // The chat's WebSocket passes through the test, which can cut it as a network would.
      const sockets: WebSocketRoute[] = [];
      await page.routeWebSocket(/\/api\/sessions\/[^/]+\/chat/, (ws) => {
        ws.connectToServer();
        sockets.push(ws);
      });
      await page.goto('/sessions');
      await page.getByRole('button', { name: 'New session' }).click();
      await page.getByText('connected', { exact: true }).waitFor({ timeout: 30_000 });
      sessionId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
      fake.enqueue({ kind: 'text', text: AI_REPLY });
      await page.getByLabel('Message').fill('summarise');
      await page.getByLabel('Message').press('Enter');
      const reply = page.locator('.chat-bubble.assistant').last();
      await reply.getByText('a point worth making about item 60').waitFor({ timeout: 30_000 });
      // The Markdown table is a table; the long reply is collapsed with its line count.
      await reply
        .getByRole('region', { name: 'Table' })
        .getByRole('cell', { name: 'greet.star' })
        .waitFor();
      expect(await reply.getByRole('columnheader').allTextContents()).toEqual([
        'Script',
        'Runs',
        'State',
      ]);
      await reply.getByText(`${AI_REPLY.split('\n').length} lines`, { exact: false }).waitFor();
      const box = reply.getByRole('region', { name: 'Reply' });
      expect(
        await box.evaluate(
          (el: { scrollHeight: number; clientHeight: number }) => el.scrollHeight > el.clientHeight,
        ),
      ).toBe(true);
      await reply.getByRole('button', { name: 'Show all of reply' }).click();
      // The connection drops; the chat says so and reconnects by itself.
      const before = sockets.length;
      await sockets.at(-1)!.close({ code: 1001, reason: 'cut by the test' });
      await page.getByText('disconnected, retrying').waitFor();
      await page.getByText('connected', { exact: true }).waitFor({ timeout: 15_000 });
      expect(sockets.length).toBeGreaterThan(before);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);
    } finally {
      await context.close();
    }
    screens.push(
      { name: 'dashboard', path: '/', heading: 'Dashboard', title: 'Dashboard · Steward' },
      { name: 'scripts', path: '/scripts', heading: 'Scripts', title: 'Scripts · Steward' },
      {
        name: 'script',
        path: '/scripts/greet.star',
        heading: 'greet.star',
        title: 'greet.star · Scripts · Steward',
      },
      {
        name: 'script-edit',
        path: '/scripts/greet.star/edit',
        heading: 'Edit greet.star',
        title: 'Edit greet.star · Steward',
      },
      {
        name: 'script-new',
        path: '/scripts/new',
        heading: 'New script',
        title: 'New script · Steward',
      },
      {
        name: 'review',
        path: '/scripts/greet.star/review',
        heading: 'Review greet.star',
        title: 'Review greet.star · Steward',
      },
      { name: 'secrets', path: '/secrets', heading: 'Secrets', title: 'Secrets · Steward' },
      {
        name: 'schedules',
        path: '/schedules',
        heading: 'Schedules',
        title: 'Schedules · Steward',
      },
      {
        name: 'schedule',
        path: `/schedules/${scheduleId}`,
        heading: 'a schedule whose name is long enough to wrap',
        title: 'Schedule · Steward',
      },
      {
        name: 'schedule-new',
        path: '/schedules/new',
        heading: 'New schedule',
        title: 'New schedule · Steward',
      },
      { name: 'sessions', path: '/sessions', heading: 'Sessions', title: 'Sessions · Steward' },
      {
        name: 'session',
        path: `/sessions/${encodeURIComponent(sessionId)}`,
        heading: /./,
        title: 'Session · Steward',
      },
      { name: 'chat', path: '/chat', heading: 'Chat', title: 'Chat · Steward' },
      {
        name: 'not-found',
        path: '/no/such/screen',
        heading: 'Page not found',
        title: 'Page not found · Steward',
      },
    );
  });

  for (const width of [1280, 390]) {
    it(`at ${width} px every screen fits the viewport, is reachable by keyboard and passes axe`, async () => {
      const { context, page } = await open(width);
      const widths: Record<string, number> = {};
      const problems: string[] = [];
      try {
        for (const screen of screens) {
          try {
            await page.goto(screen.path);
            await page
              .getByRole('main')
              .getByRole('heading', { name: screen.heading })
              .first()
              .waitFor();
            await expect.poll(() => page.getByText(/^Loading/).count()).toBe(0);
            expect(await page.title(), screen.name).toBe(screen.title);
            widths[screen.name] = (await page.evaluate(
              'document.documentElement.scrollWidth',
            )) as number;
            await screenshot(page, `screen-${width}-${screen.name}`);
          } catch (err) {
            problems.push(`${screen.name}: ${(err as Error).message.split('\n')[0]}`);
            continue;
          }
          const reach = await unreachableByTab(page);
          if (reach.missed.length > 0) {
            problems.push(`${screen.name}: not reached by Tab: ${reach.missed.join('; ')}`);
          }
          // Every screen is checked before the test fails, so one run lists all there is to fix.
          await expectAccessible(page, `${screen.name} at ${width} px`).catch(
            (err: Error & { actual?: unknown }) =>
              problems.push(`${screen.name}: ${JSON.stringify(err.actual ?? err.message)}`),
          );
        }
      } finally {
        await context.close();
      }
      console.log(`scrollWidth at ${width} px`, widths);
      expect(problems).toEqual([]);
      for (const [name, w] of Object.entries(widths)) {
        expect(w, `${name} at ${width} px`).toBeLessThanOrEqual(width);
      }
    });
  }
});
