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
 * The Activity screen against a real `steward start`: what the administrator did (a login in
 * this browser, a script created and approved, secrets set through the API) is listed newest
 * first with its actor and channel, links to the script it concerns, narrows by action and
 * channel, and pages back through the API's cursor. On a 390 px phone it stays within the screen.
 */
describe('the Activity screen', { timeout: 180_000 }, () => {
  let steward: RunningSteward;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let api: ApiCall;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    steward = await startSteward(null);
    api = await setupAdmin(steward.base);
    browser = await launchChromium();
    context = await browser.newContext({
      baseURL: steward.base,
      viewport: { width: 1280, height: 860 },
      reducedMotion: 'reduce',
    });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => pageErrors.push(err.message));
  }, 120_000);

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' && page) {
      await screenshot(page, `activity-failed-${ctx.task.name.slice(0, 30).replace(/\W+/g, '-')}`);
    }
  });

  afterAll(async () => {
    await browser?.close();
    await steward?.stop();
  });

  const entries = () => page.getByRole('list', { name: 'Activity entries' }).getByRole('listitem');

  it('lists a login, a script created and approved and secrets set, newest first', async () => {
    await uiLogin(page);
    const source = 'def main():\n    return 1\n';
    const created = await api('POST', '/api/scripts', { name: 'tally.star', source });
    expect(created.status).toBe(201);
    const approved = await api('POST', '/api/scripts/tally.star/approve', {
      hash: created.body.hash,
    });
    expect(approved.status).toBe(200);
    // Enough entries for more than one page (50 a page).
    for (let i = 0; i < 52; i++) {
      expect((await api('POST', `/api/secrets/KEY_${i}`, { value: `v-${i}-x` })).status).toBe(200);
    }

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Activity' })
      .click();
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    await expect.poll(() => entries().count()).toBe(50);
    // Newest first: the last secret set heads the list.
    await expect.poll(() => entries().first().textContent()).toMatch(/secret\.set.*KEY_51.*ok/);
    expect(await entries().first().textContent()).toMatch(/by admin through API/);
    // No secret value is shown.
    expect(await page.locator('main').textContent()).not.toContain('v-51-x');
    await expectAccessible(page, 'activity');
    await screenshot(page, 'activity-desktop');

    // The cursor: older entries follow, down to the first.
    await page.getByRole('button', { name: 'Load older entries' }).click();
    await expect.poll(() => entries().count()).toBeGreaterThan(50);
    await page.getByText(/entries: that is all\./).waitFor();
    const all = (await entries().allTextContents()).join('\n');
    expect(all).toMatch(/script\.approve\s*tally\.star/);
    expect(all).toMatch(/script\.create\s*tally\.star/);
    expect(all).toMatch(/auth\.login.*by admin through web UI/);
    expect(all).toMatch(/auth\.setup/);
  });

  it('narrows by action and by channel, and links to the script an entry concerns', async () => {
    await page.getByRole('combobox', { name: 'Action' }).fill('script');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => entries().count()).toBe(2);
    expect(await entries().allTextContents()).toEqual([
      expect.stringMatching(/^script\.approve/),
      expect.stringMatching(/^script\.create/),
    ]);
    // The filter is in the address: a reload keeps it.
    expect(new URL(page.url()).search).toBe('?action=script');
    await page.reload();
    await expect.poll(() => entries().count()).toBe(2);

    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByRole('combobox', { name: 'Channel' }).click();
    await page.getByRole('option', { name: 'web UI' }).click();
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => new URL(page.url()).search).toBe('?channel=ui');
    await expect
      .poll(async () => (await entries().allTextContents()).join('\n'))
      .toMatch(/^auth\.login/);
    for (const text of await entries().allTextContents()) expect(text).toMatch(/through web UI/);

    // A time range that ends before anything happened finds nothing.
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => new URL(page.url()).search).toBe('');
    await page.getByLabel('Until').fill('2001-01-01T00:00');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No activity matches these filters.').waitFor();

    await page.goto('/activity?action=script.approve');
    await entries().first().getByRole('link', { name: 'tally.star' }).click();
    await page.getByRole('heading', { name: 'tally.star' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/scripts/tally.star');
  });

  it('fits a 390 px phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/activity');
    await expect.poll(() => entries().count()).toBe(50);
    expect(await pageWidth(page), (await overflowing(page)).join('\n')).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'activity on a phone');
    await screenshot(page, 'activity-phone');
    expect(pageErrors).toEqual([]);
  });
});
