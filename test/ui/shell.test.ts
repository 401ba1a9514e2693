import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginApi, TEST_ADMIN, type AdminApi } from '../support/admin-api.js';
import {
  expectAccessible,
  launchChromium,
  screenshot,
  startSteward,
  type RunningSteward,
} from '../support/browser.js';
import { unreachableByTab } from '../support/keyboard.js';

/**
 * The UI's shell and finish against a real `steward start` (no engine): first-run setup and
 * login focus and rules, the phone menu, the not-found screen, a long run output (collapsed,
 * scrollable, expandable, downloadable), and the script editor (Starlark completion, Tab,
 * syntax error position, no Content-Security-Policy refusal while typing).
 */
const LONG_OUTPUT_SOURCE = [
  'def main():',
  '    lines = []',
  '    for i in range(120):',
  '        lines.append("line %d: %s" % (i + 1, "data " * 8))',
  `    lines.append("${'z'.repeat(700)}")`,
  '    return "\\n".join(lines)',
  '',
].join('\n');

describe('the UI shell in Chromium', { timeout: 180_000 }, () => {
  let steward: RunningSteward;
  let browser: Browser;
  let desktop: BrowserContext;
  let page: Page;
  let api: AdminApi;
  const csp: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    steward = await startSteward(null, {
      admin: { rate_limit: { api_per_minute: 5000, login_per_minute: 100 } },
    });
    browser = await launchChromium();
    desktop = await browser.newContext({
      baseURL: steward.base,
      viewport: { width: 1280, height: 860 },
      reducedMotion: 'reduce',
      acceptDownloads: true,
    });
    page = await desktop.newPage();
    page.setDefaultTimeout(15_000);
    page.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) csp.push(msg.text());
    });
    page.on('pageerror', (err) => pageErrors.push(err.message));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await steward?.stop();
  });

  const focused = () =>
    page.evaluate(
      `(document.activeElement?.labels?.[0]?.textContent ?? document.activeElement?.tagName ?? '').replace(/\\s*\\*$/, '')`,
    );

  it('setup: focus starts on the first field; a password rule shows after leaving the field', async () => {
    await page.goto('/');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/setup');
    await page.getByRole('heading', { name: 'Set up Steward' }).waitFor();
    expect(await page.title()).toBe('Set up · Steward');
    await expect.poll(focused).toBe('Username');
    const password = page.getByRole('textbox', { name: 'Password', exact: true });
    await password.fill('short');
    // While typing, the rule stands as the field's description, not as an error.
    expect(await password.getAttribute('aria-invalid')).not.toBe('true');
    await password.press('Tab');
    await expect.poll(() => password.getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'shell-setup-rule');
    await password.fill(TEST_ADMIN.password);
    await expect.poll(() => password.getAttribute('aria-invalid')).not.toBe('true');
    await page.getByRole('textbox', { name: 'Confirm password' }).fill(TEST_ADMIN.password);
    await page.getByLabel('Username').fill(TEST_ADMIN.username);
    await page.getByRole('button', { name: 'Create administrator' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/login');
  });

  it('login: focus on the username, a title, and a favicon from this origin', async () => {
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    expect(await page.title()).toBe('Log in · Steward');
    await expect.poll(focused).toBe('Username');
    const icon = (await page.evaluate(
      `document.querySelector('link[rel="icon"]')?.href ?? ''`,
    )) as string;
    expect(new URL(icon).origin).toBe(steward.base);
    const res = await fetch(icon);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    await page.keyboard.type(TEST_ADMIN.username);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(TEST_ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    api = await loginApi(steward.base);
  });

  it("an unknown path shows the UI's not-found screen (404); an unknown API path stays JSON", async () => {
    const answer = await page.goto('/no/such/screen');
    expect(answer?.status()).toBe(404);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(await page.title()).toBe('Page not found · Steward');
    expect(await page.evaluate('document.documentElement.lang')).toBe('en');
    await expectAccessible(page, 'not found');
    await screenshot(page, 'shell-not-found');
    await page.getByRole('link', { name: 'Go to the dashboard' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const apiMissing = await fetch(`${steward.base}/api/no-such-thing`);
    expect(apiMissing.status).toBe(404);
    expect(await apiMissing.json()).toMatchObject({ error: 'not_found' });
  });

  it('the editor offers Starlark names only, Tab indents, and typing never hits the CSP', async () => {
    await page.goto('/scripts/new');
    await page.getByLabel('Name').fill('typed.star');
    const editor = page.locator('.cm-content');
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('def main():\n');
    // Tab indents inside the editor (focus stays).
    await page.keyboard.press('Home');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(`!!document.activeElement?.closest('.cm-content')`)).toBe(true);
    await page.keyboard.type('pri');
    const options = page.locator('.cm-tooltip-autocomplete li');
    await options.first().waitFor();
    expect(await options.allTextContents()).toContain('print');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('imp');
    // Python's "import" is not Starlark: nothing to offer for it.
    await page.waitForTimeout(500);
    expect(await options.allTextContents()).not.toContain('import');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('def main():\n\treturn se');
    await options.first().waitFor();
    expect(await options.allTextContents()).toEqual(expect.arrayContaining(['secrets', 'set']));
    await page.keyboard.press('Escape');
    const text = (await editor.textContent()) ?? '';
    expect(text).toMatch(/^def main\(\):\s+return se$/);
    expect(csp).toEqual([]);
    // Escape, then Tab, leaves the editor: it never traps the keyboard.
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(`!!document.activeElement?.closest('.cm-content')`)).toBe(false);
  });

  it('states a syntax error position once, and clears it when the text is edited', async () => {
    const editor = page.locator('.cm-content');
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText('def main():\n    return {"a": }\n');
    await page.getByRole('button', { name: 'Create script' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Not saved' });
    await alert.waitFor();
    const said = (await alert.textContent()) ?? '';
    expect(said).toMatch(/Line 2, column \d+: got '}', want primary expression/);
    expect(said.match(/2/g)?.length).toBe(1);
    expect(said).not.toContain('typed.star:');
    await page.locator('.cm-lintRange-error').first().waitFor();
    await expectAccessible(page, 'syntax error');
    await screenshot(page, 'shell-syntax-error');
    // The fix: the refusal and its mark go at the first edit.
    await page.getByText('{"a": }').click();
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.type(' 1');
    await alert.waitFor({ state: 'detached' });
    expect(await page.locator('.cm-lintRange-error').count()).toBe(0);
    await page.getByRole('button', { name: 'Create script' }).click();
    await page.getByText('typed.star saved. It is pending').waitFor();
    expect(csp).toEqual([]);
  });

  it('a long run output is collapsed with its line count, scrolls in its box, expands and downloads', async () => {
    const made = await api('POST', '/api/scripts', {
      name: 'long.star',
      source: LONG_OUTPUT_SOURCE,
    });
    expect(made.status).toBe(201);
    expect((await api('POST', '/api/scripts/long.star/approve')).status).toBe(200);
    const schedule = await api('POST', '/api/schedules', {
      name: 'long output',
      type: 'script',
      script_name: 'long.star',
      cron_expr: '0 0 1 1 *',
      enabled: true,
    });
    expect(schedule.status).toBe(201);
    const id = schedule.body.id as string;
    await page.goto(`/schedules/${id}`);
    await page.getByRole('button', { name: 'Run now' }).click();
    const box = page.getByRole('region', { name: 'Output' });
    await box.waitFor({ timeout: 60_000 });
    await page.getByText('121 lines, ').waitFor();
    const size = () =>
      box.evaluate((el: { scrollHeight: number; clientHeight: number }) => ({
        scroll: el.scrollHeight,
        client: el.clientHeight,
      }));
    const collapsed = await size();
    expect(collapsed.scroll).toBeGreaterThan(collapsed.client * 2);
    // It scrolls inside itself, by keyboard too.
    await box.focus();
    await page.keyboard.press('End');
    await expect
      .poll(() => box.evaluate((el: { scrollTop: number }) => el.scrollTop))
      .toBeGreaterThan(0);
    const expand = page.getByRole('button', { name: 'Show all of output' });
    expect(await expand.getAttribute('aria-expanded')).toBe('false');
    await expand.click();
    const collapse = page.getByRole('button', { name: 'Collapse output' });
    expect(await collapse.getAttribute('aria-expanded')).toBe('true');
    const open = await size();
    expect(open.scroll).toBe(open.client);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download output' }).click(),
    ]);
    const saved = readFileSync(await download.path(), 'utf8');
    expect(saved.split('\n')).toHaveLength(121);
    expect(saved).toContain('z'.repeat(700));
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);
    await collapse.click();
    await expectAccessible(page, 'long output');
    await screenshot(page, 'shell-long-output');
  });

  it('every control of the desktop screens is reachable with Tab', async () => {
    for (const path of ['/', '/scripts', '/scripts/long.star', '/secrets', '/schedules', '/chat']) {
      await page.goto(path);
      await page.getByRole('main').getByRole('heading').first().waitFor();
      await expect.poll(() => page.getByText(/^Loading/).count()).toBe(0);
      const { controls, missed } = await unreachableByTab(page);
      expect(controls, path).toBeGreaterThanOrEqual(8);
      expect(missed, path).toEqual([]);
    }
  });

  it('the navigation counts scripts waiting for review without a reload', async () => {
    await page.goto('/secrets');
    await page.getByRole('heading', { name: 'Secrets' }).waitFor();
    const scripts = page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Scripts', exact: true });
    const waiting = async () =>
      ((await api('GET', '/api/scripts')).body.scripts as Array<{ status: string }>).filter(
        (s) => s.status === 'pending',
      ).length;
    const before = await waiting();
    const badge = () =>
      scripts
        .locator('.mantine-Badge-root')
        .textContent({ timeout: 1_000 })
        .catch(() => '');
    await expect.poll(badge).toBe(before ? String(before) : '');
    const made = await api('POST', '/api/scripts', {
      name: 'proposed.star',
      source: 'def main():\n    return 1\n',
    });
    expect(made.status).toBe(201);
    // The next poll (every 10 s) or the window regaining focus shows it; no reload, no click.
    await page.evaluate(`window.dispatchEvent(new Event('focus'))`);
    await expect.poll(badge).toBe(String(before + 1));
    // Its name stays "Scripts" (found above by exact name); the count is its description.
    const described = await scripts.getAttribute('aria-describedby');
    expect(
      await page.evaluate(`document.getElementById(${JSON.stringify(described)})?.textContent`),
    ).toBe(`${before + 1} ${before + 1 === 1 ? 'script waits' : 'scripts wait'} for review`);
    expect(new URL(page.url()).pathname).toBe('/secrets');
  });

  it('says when Steward does not answer, and clears that by itself once it does', async () => {
    await page.route('**/api/**', (route) => route.abort('connectionrefused'));
    await page.evaluate(`window.dispatchEvent(new Event('focus'))`);
    const banner = page.getByRole('status').getByText('Steward is not answering');
    await banner.waitFor();
    await expectAccessible(page, 'unreachable banner');
    await screenshot(page, 'shell-unreachable');
    await page.unroute('**/api/**');
    // Polls come every 3 s while it is away.
    await banner.waitFor({ state: 'detached', timeout: 10_000 });
  });

  it('"Add a secret" with a name that has a value asks before replacing it', async () => {
    expect((await api('POST', '/api/secrets/EXISTING_KEY', { value: 'first' })).status).toBe(200);
    const updated = async () =>
      (
        (await api('GET', '/api/secrets')).body.secrets as Array<{
          name: string;
          last_updated: string;
        }>
      ).find((x) => x.name === 'EXISTING_KEY')?.last_updated;
    const before = await updated();
    await page.goto('/secrets');
    await page.getByRole('button', { name: 'Add a secret' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: 'Name' }).fill('EXISTING_KEY');
    await dialog.getByRole('textbox', { name: 'Value' }).fill('second');
    await dialog.getByRole('button', { name: 'Save secret' }).click();
    await dialog.getByRole('alert').getByText('EXISTING_KEY already has a value').waitFor();
    await expectAccessible(page, 'replace secret');
    await screenshot(page, 'shell-secret-replace');
    expect(await updated()).toBe(before);
    await dialog.getByRole('button', { name: 'Replace EXISTING_KEY' }).click();
    await page.getByText('EXISTING_KEY set.').waitFor();
    await expect.poll(updated).not.toBe(before);
  });

  it('on a phone the menu button says whether the menu is open, and one thumb finds a section', async () => {
    const phone = await browser.newContext({
      baseURL: steward.base,
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
      reducedMotion: 'reduce',
    });
    try {
      const p = await phone.newPage();
      p.setDefaultTimeout(15_000);
      await p.goto('/login');
      await p.getByLabel('Username').fill(TEST_ADMIN.username);
      await p.getByRole('textbox', { name: 'Password', exact: true }).fill(TEST_ADMIN.password);
      await p.getByRole('button', { name: 'Log in' }).click();
      await p.getByRole('heading', { name: 'Dashboard' }).waitFor();
      const menu = p.getByRole('button', { name: 'Menu' });
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      // Closed, the menu's links are out of reach: nothing invisible takes the focus.
      expect(await p.getByRole('navigation', { name: 'Main' }).getByRole('link').count()).toBe(0);
      const reach = await unreachableByTab(p);
      expect(reach.missed).toEqual([]);
      expect(reach.controls).toBeGreaterThan(2);
      await menu.tap();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      const scripts = p
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Scripts' });
      const box = await scripts.boundingBox();
      expect(box?.height).toBeGreaterThanOrEqual(44);
      await expectAccessible(p, 'phone menu');
      await screenshot(p, 'shell-phone-menu');
      // Escape closes it and gives the focus back to the button.
      await p.keyboard.press('Escape');
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await p.evaluate(`document.activeElement?.getAttribute('aria-label')`)).toBe('Menu');
      await menu.tap();
      await scripts.tap();
      await p.getByRole('heading', { name: 'Scripts' }).waitFor();
      expect(new URL(p.url()).pathname).toBe('/scripts');
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await p.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    } finally {
      await phone.close();
    }
  });

  it('never hit the Content-Security-Policy and threw no page errors', () => {
    expect(csp).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
