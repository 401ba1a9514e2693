import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createChatAccess } from '../../src/chat/chat-access.js';
import { createChatIdentityRepository } from '../../src/store/chat-identity-repository.js';
import { createChatPairingRepository } from '../../src/store/chat-pairing-repository.js';
import { storeRedis } from '../support/redis.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';
import {
  expectAccessible,
  launchChromium,
  screenshot,
  startSteward,
  type RunningSteward,
} from '../support/browser.js';

/**
 * The administrator's journey in a real browser (Debian's Chromium, headless) against a real
 * `steward start` with the real OpenCode and the fake model: first-run setup, login, a script
 * from creation through review and approval to a test run, its secret, a schedule and its run,
 * and a chat whose reply streams in; then the session surviving a reload, a review overtaken by
 * a change, and a rejection with its reason. Every screen is checked with axe-core, and the
 * page's Content-Security-Policy must never have to refuse anything.
 */
const ADMIN = { username: 'admin', password: 'correct horse battery staple' };
const SECRET_VALUE = 'sk-ui-journey-4b1d9e7c2a';

const SOURCE = [
  '# @description: greets someone by name',
  '# @author: admin',
  '# @secrets: GREETING_KEY -> api.example.com',
  'def main():',
  '    return {"greeting": "hello " + args.get("name", "world")}',
  '',
].join('\n');

describe('admin web UI in Chromium', { timeout: 240_000 }, () => {
  let fake: FakeModel;
  let steward: RunningSteward;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    fake = await startFakeModel();
    fake.setFallback({ kind: 'text', text: 'ok' });
    steward = await startSteward(fake.baseURL, {
      // Short-lived access tokens, so the journey goes through silent refreshes.
      admin: {
        jwt: { access_expiry: '8s' },
        rate_limit: { api_per_minute: 2000, login_per_minute: 50 },
      },
      // A Telegram section (its token secret never set, so nothing is polled): the chat screen
      // then lists the provider; the pairing request below is made in the store.
      chat: { telegram: { token_secret: 'TELEGRAM_TOKEN', api_root: 'http://127.0.0.1:9' } },
    });
    await steward.engineUp();
    browser = await launchChromium();
    context = await browser.newContext({
      baseURL: steward.base,
      viewport: { width: 1280, height: 860 },
      // No transitions: axe then sees colours as they settle, and screenshots are steady.
      reducedMotion: 'reduce',
    });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) cspViolations.push(msg.text());
    });
    page.on('pageerror', (err) => pageErrors.push(err.message));
  }, 180_000);

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' && page) {
      await screenshot(page, `failed-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
    }
  });

  afterAll(async () => {
    await browser?.close();
    await steward?.stop();
    await fake?.close();
  });

  const nav = (name: string) =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });

  /** Puts `text` into the CodeMirror editor as typed text (no auto-indent or bracket closing). */
  async function fillEditor(text: string) {
    const editor = page.locator('.cm-content');
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(text);
  }

  it('first start: the setup page creates the administrator', async () => {
    await page.goto('/');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/setup');
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(ADMIN.password);
    await page.getByRole('textbox', { name: 'Confirm password' }).fill(ADMIN.password);
    await expectAccessible(page, 'setup');
    await screenshot(page, '01-setup');
    await page.getByRole('button', { name: 'Create administrator' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/login');
  });

  it('logs in to the dashboard; no token is kept in web storage', async () => {
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(ADMIN.password);
    await expectAccessible(page, 'login');
    await screenshot(page, '02-login');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByText('No script waits for review.').waitFor();
    await page.getByText('engine connected').waitFor();
    // Evaluated in the page (browser globals; this file is compiled without the DOM types).
    const storage = await page.evaluate(`({
      local: JSON.stringify({ ...localStorage }),
      session: JSON.stringify({ ...sessionStorage }),
      cookies: document.cookie,
    })`);
    expect(storage).toEqual({ local: '{}', session: '{}', cookies: '' });
    await expectAccessible(page, 'dashboard');
    await screenshot(page, '03-dashboard-empty');
    // Keyboard: the skip link is the page's first tab stop and moves focus to the content. (A
    // new screen focuses the content itself, so the next Tab goes to its first control, here
    // "Download a backup".)
    expect(
      await page.evaluate(
        `document.querySelector('a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])').textContent`,
      ),
    ).toBe('Skip to content');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Download a backup');
    await page.getByRole('link', { name: 'Skip to content' }).focus();
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement.id')).toBe('main');
  });

  it('creates a script, which is pending and waits on the dashboard', async () => {
    await nav('Scripts').click();
    await page.getByText('No scripts yet.').waitFor();
    await page.getByRole('link', { name: 'New script' }).click();
    await page.getByLabel('Name').fill('greet.star');
    // A syntax error: Steward's invalid_script answer is shown at its line and column.
    await fillEditor('def main():\n    return {"a": }\n');
    await page.getByRole('button', { name: 'Create script' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'Not saved' });
    await refused.getByText(/Line 2, column \d+/).waitFor();
    await page.locator('.cm-lintRange-error').first().waitFor();
    await screenshot(page, '04a-invalid-script');
    await fillEditor(SOURCE);
    await expectAccessible(page, 'new script');
    await screenshot(page, '04-new-script');
    await page.getByRole('button', { name: 'Create script' }).click();
    await page.getByText('greet.star saved. It is pending').waitFor();
    await expect
      .poll(() => page.locator('.mantine-Badge-label', { hasText: 'pending' }).count())
      .toBeGreaterThan(0);
    await screenshot(page, '05-script-pending');

    await nav('Dashboard').click();
    const pending = page.getByRole('region', { name: 'Waiting for your approval' });
    await pending.getByRole('link', { name: 'greet.star', exact: true }).waitFor();
    await screenshot(page, '06-dashboard-pending');
  });

  it('reviews the whole new text and approves the hash on screen', async () => {
    await page.getByRole('link', { name: 'Review greet.star' }).click();
    await page.getByRole('heading', { name: 'Review greet.star' }).waitFor();
    await page.getByText('Never approved: the whole text is new.').waitFor();
    const diff = page.locator('table.diff-table');
    await diff.getByText('return {"greeting": "hello " + args.get("name", "world")}').waitFor();
    expect(await diff.locator('td.add').count()).toBe(5);
    // The secret and where it may go are part of what is approved.
    await page
      .getByRole('list', { name: 'Secrets it declares' })
      .getByText('api.example.com', { exact: true })
      .waitFor();
    await expectAccessible(page, 'review');
    await screenshot(page, '07-review-new');
    await page.getByRole('button', { name: 'Approve this text' }).click();
    await page.getByText('greet.star approved').waitFor();
    await expect
      .poll(() => page.locator('.mantine-Badge-label', { hasText: 'approved' }).count())
      .toBeGreaterThan(0);
  });

  it('runs a test with JSON arguments and shows the result', async () => {
    await page.getByRole('tab', { name: 'Test run' }).click();
    await page.getByLabel('Arguments (JSON object)').fill('{"name": "Ada"}');
    await page.getByRole('button', { name: 'Run test' }).click();
    await page.getByText('"greeting": "hello Ada"').waitFor({ timeout: 30_000 });
    await expectAccessible(page, 'test run');
    await screenshot(page, '08-test-run');
  });

  it('sets the secret the script declares; its value is never shown', async () => {
    await nav('Secrets').click();
    const row = page.getByRole('row', { name: /GREETING_KEY/ });
    await row.getByText('not set').waitFor();
    await row.getByRole('link', { name: 'greet.star', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Set GREETING_KEY' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: 'Value' }).fill(SECRET_VALUE);
    await expectAccessible(page, 'set secret');
    await screenshot(page, '09-set-secret');
    await dialog.getByRole('button', { name: 'Save secret' }).click();
    await page.getByText('GREETING_KEY set.').waitFor();
    await row.getByText('set', { exact: true }).waitFor();
    expect(await page.content()).not.toContain(SECRET_VALUE);
    await expectAccessible(page, 'secrets');
    await screenshot(page, '10-secrets');
  });

  it('downloads a backup from the dashboard: the whole store, the secret only as ciphertext', async () => {
    await nav('Dashboard').click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download a backup' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^steward-backup-\d{8}-\d{6}\.jsonl$/);
    const file = await download.path();
    const text = readFileSync(file, 'utf8');
    expect(JSON.parse(text.split('\n')[0] ?? '')).toMatchObject({ format: 'steward-backup' });
    expect(text).toContain('"key":"secret:GREETING_KEY"');
    expect(text).not.toContain(SECRET_VALUE);
    expect(text.trimEnd().split('\n').pop()).toMatch(/^\{"hmac":"[0-9a-f]{64}"\}$/);
  });

  it('creates a schedule with a live preview, runs it and shows the run', async () => {
    await nav('Schedules').click();
    await page.getByText('No schedules.').waitFor();
    await page.getByRole('link', { name: 'New schedule' }).click();
    await page.getByLabel('Name').fill('morning greeting');
    await page.getByRole('combobox', { name: 'Script' }).click();
    await page.getByRole('option', { name: 'greet.star' }).click();
    await page.getByLabel('Cron').fill('30 6 * * 1-5');
    await page.getByText('next five firings').waitFor();
    expect(await page.getByRole('listitem').count()).toBe(5);
    await expectAccessible(page, 'new schedule');
    await screenshot(page, '11-new-schedule');
    await page.getByRole('button', { name: 'Create schedule' }).click();
    await page.getByRole('heading', { name: 'morning greeting' }).waitFor();
    await page.getByText('No runs yet.').waitFor();
    await page.getByRole('button', { name: 'Run now' }).click();
    const run = page.getByRole('row', { name: /hello world/ });
    await run.waitFor({ timeout: 60_000 });
    await run.getByText('success').waitFor();
    await run.getByText('not sent').waitFor();
    await expectAccessible(page, 'schedule');
    await screenshot(page, '12-schedule-run');
    await nav('Schedules').click();
    await page
      .getByRole('row', { name: /morning greeting/ })
      .getByText('success')
      .waitFor();
    await screenshot(page, '13-schedules');
  });

  it('creates an AI prompt schedule that runs once, and shows the reply as its output', async () => {
    await page.getByRole('link', { name: 'New schedule' }).click();
    await page.getByLabel('Name').fill('daily summary');
    await page.getByText('An AI prompt', { exact: true }).click();
    await page.getByRole('textbox', { name: 'Prompt' }).fill('Summarise my day in one line.');
    // By keyboard: focus the switch and press Space.
    const once = page.getByRole('switch', { name: 'Run once, then disable' });
    await once.focus();
    await page.keyboard.press('Space');
    expect(await once.isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Create schedule' }).click();
    await page.getByRole('heading', { name: 'daily summary' }).waitFor();
    fake.enqueue({ kind: 'text', text: 'A quiet day: one script approved.' });
    await page.getByRole('button', { name: 'Run now' }).click();
    await page
      .getByRole('row', { name: /A quiet day: one script approved\./ })
      .getByText('success')
      .waitFor({ timeout: 60_000 });
    // Run once: the schedule disabled itself, and the form shows it.
    await expect
      .poll(() => page.getByRole('switch', { name: 'Enabled' }).isChecked(), { timeout: 10_000 })
      .toBe(false);
    await screenshot(page, '13a-agent-schedule-run');
    await nav('Schedules').click();
    await expect
      .poll(async () => page.getByRole('switch', { name: 'daily summary enabled' }).isChecked())
      .toBe(false);
  });

  it('chats in a new session and sees the reply stream in, rendered as Markdown', async () => {
    await nav('Sessions').click();
    await page.getByRole('button', { name: 'New session' }).click();
    await page.getByText('connected', { exact: true }).waitFor({ timeout: 30_000 });
    fake.enqueue({
      kind: 'text',
      text: 'Hello **Ada**, the reply streams in pieces.<script>alert(1)</script>',
      chunks: 6,
      delayMs: 150,
      // The bubble's streaming state is checked below: it must not end before it is seen.
      beforeLast: () => page.getByText('Assistant (typing…)').waitFor({ timeout: 30_000 }),
    });
    await page.getByLabel('Message').fill('hi there');
    await page.getByLabel('Message').press('Enter');
    const reply = page.locator('.chat-bubble.assistant').last();
    // While it streams the bubble says so; at `done` it does not.
    await page.getByText('Assistant (typing…)').waitFor({ timeout: 30_000 });
    await reply.getByText('the reply streams in pieces.').waitFor({ timeout: 30_000 });
    await page.getByText('Assistant (typing…)').waitFor({ state: 'detached', timeout: 30_000 });
    expect(await reply.locator('strong').textContent()).toBe('Ada');
    expect(await reply.locator('script').count()).toBe(0);
    await expectAccessible(page, 'chat');
    await screenshot(page, '14-chat');

    await nav('Sessions').click();
    await page.getByText('active', { exact: true }).waitFor();
    await expectAccessible(page, 'sessions');
    await screenshot(page, '15-sessions');
  });

  it('lists scripts with a status filter and search, and compares versions', async () => {
    await nav('Scripts').click();
    await page.getByRole('link', { name: 'greet.star', exact: true }).waitFor();
    await page.getByText('Pending', { exact: true }).click();
    await page.getByText('No script matches.').waitFor();
    await page.getByText('Approved', { exact: true }).click();
    await page.getByRole('link', { name: 'greet.star', exact: true }).waitFor();
    await page.getByRole('textbox', { name: 'Search scripts' }).fill('GREETING');
    await page.getByRole('link', { name: 'greet.star', exact: true }).waitFor();
    await expectAccessible(page, 'scripts');
    await screenshot(page, '16a-scripts');
    await page.getByRole('link', { name: 'greet.star', exact: true }).click();
    await page.getByRole('tab', { name: 'Runs' }).click();
    await page.getByRole('cell', { name: /ms$/ }).first().waitFor();
    await page.getByRole('tab', { name: 'Versions' }).click();
    await page.getByRole('cell', { name: 'created' }).waitFor();
    await expectAccessible(page, 'versions');
  });

  it('shows a pairing request on the chat screen and approves it', async () => {
    const redis = storeRedis(steward.prefix);
    try {
      const access = createChatAccess({
        pairings: createChatPairingRepository(redis),
        identities: createChatIdentityRepository(redis),
        allow: {},
      });
      const pairing = await access.requestPairing({
        provider: 'telegram',
        chatId: '424242',
        userId: '424242',
        userName: 'Grace',
        text: 'hello?',
      });
      expect(pairing?.code).toMatch(/^[A-Za-z0-9]{8}$/);
      await nav('Chat').click();
      await page
        .getByRole('region', { name: 'Providers' })
        .getByText('telegram', { exact: true })
        .waitFor();
      const row = page.getByRole('row', { name: new RegExp(pairing!.code) });
      await row.getByText('Grace').waitFor();
      await expectAccessible(page, 'chat pairings');
      await screenshot(page, '16b-chat-pairing');
      await page.getByRole('button', { name: `Approve ${pairing!.code}` }).click();
      await page.getByText('Grace may now talk to the assistant.').waitFor();
      await page.getByText('No one is waiting.', { exact: false }).waitFor();
      await page
        .getByRole('region', { name: 'Approved people' })
        .getByRole('cell', { name: 'Grace' })
        .waitFor();
      await screenshot(page, '16c-chat-approved');
    } finally {
      redis.disconnect();
    }
  });

  it('renews an expired access token silently through the refresh cookie', async () => {
    const renewals: number[] = [];
    const refused: number[] = [];
    const onResponse = (res: {
      url(): string;
      status(): number;
      request(): { method(): string };
    }) => {
      const url = new URL(res.url());
      if (url.pathname === '/api/session' && res.status() === 200) renewals.push(Date.now());
      if (url.pathname.startsWith('/api/') && res.status() === 401) refused.push(Date.now());
    };
    page.on('response', onResponse);
    // The access token lives 8 s here; wait it out, then use the app.
    await page.waitForTimeout(9_000);
    await nav('Secrets').click();
    await page
      .getByRole('row', { name: /GREETING_KEY/ })
      .getByText('set', { exact: true })
      .waitFor();
    page.off('response', onResponse);
    expect(refused.length).toBeGreaterThan(0);
    expect(renewals.length).toBeGreaterThan(0);
    expect(new URL(page.url()).pathname).toBe('/secrets');
  });

  it('keeps the session across a reload through the refresh cookie', async () => {
    await nav('Scripts').click();
    await page.getByRole('link', { name: 'greet.star', exact: true }).waitFor();
    await page.reload();
    await page.getByRole('link', { name: 'greet.star', exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/scripts');
    const cookies = await context.cookies();
    const refresh = cookies.find((c) => c.name === 'refresh');
    expect(refresh).toMatchObject({ httpOnly: true, path: '/api/session', sameSite: 'Strict' });
    await screenshot(page, '16-after-reload');
  });

  it('a change made during a review is not approved: the new diff is shown instead', async () => {
    const changed = SOURCE.replace('"hello "', '"good morning "');
    await nav('Scripts').click();
    await page.getByRole('link', { name: 'greet.star', exact: true }).click();
    await page.getByRole('link', { name: 'Edit' }).click();
    await fillEditor(SOURCE.replace('"hello "', '"hi "'));
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('It is pending').waitFor();
    await page.getByRole('link', { name: 'Review' }).click();
    const diff = page.locator('table.diff-table');
    await diff.locator('td.add', { hasText: '"hi "' }).waitFor();
    await diff.locator('td.del', { hasText: '"hello "' }).waitFor();
    await screenshot(page, '17-review-change');

    // Another administrator (here: the API directly) changes the script while it is on screen.
    // Logged in just now: access tokens here live 8 s, shorter than the steps above on a loaded
    // machine.
    const api = await loginApi(steward.base);
    const put = await api('PUT', '/api/scripts/greet.star', { source: changed });
    expect(put.status).toBe(200);
    await page.getByRole('button', { name: 'Approve this text' }).click();
    await page.getByText('The script changed while you were reviewing it').waitFor();
    await diff.locator('td.add', { hasText: '"good morning "' }).waitFor();
    expect(await diff.locator('td.add', { hasText: '"hi "' }).count()).toBe(0);
    const detail = await (await loginApi(steward.base))('GET', '/api/scripts/greet.star');
    expect((detail.body as { status: string }).status).toBe('pending');
    await expectAccessible(page, 'review after a change');
    await screenshot(page, '18-review-overtaken');
  });

  it('rejects with a reason, which the script page shows', async () => {
    await page.getByRole('button', { name: 'Reject…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Reason').fill('Greets too early in the morning.');
    await dialog.getByRole('button', { name: 'Reject', exact: true }).click();
    await page.getByText('greet.star rejected.').waitFor();
    await page.getByText('Reason: Greets too early in the morning.').waitFor();
    await expectAccessible(page, 'rejected script');
    await screenshot(page, '19-rejected');
  });

  it('logs out, and a reload then asks for the login again', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/login');
    await page.reload();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it('never hit the Content-Security-Policy and threw no page errors', () => {
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

/** A second client of the API: login, then the access token from the refresh cookie. */
async function loginApi(base: string) {
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  const session = await fetch(`${base}/api/session`, { headers: { cookie } });
  const { access_token: token } = (await session.json()) as { access_token: string };
  return async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as unknown };
  };
}
