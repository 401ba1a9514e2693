import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectAccessible,
  launchChromium,
  screenshot,
  startSteward,
  type RunningSteward,
} from '../support/browser.js';

/**
 * First-run setup from another machine: Steward wants the one-time setup token it printed at
 * start. The browser's requests carry `X-Forwarded-For`, which Steward never takes for loopback,
 * so they count as remote; the page asks for the token once Steward says it is needed.
 */
describe('setup page from another machine', { timeout: 120_000 }, () => {
  let steward: RunningSteward;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    steward = await startSteward(null);
    browser = await launchChromium();
    const context = await browser.newContext({
      baseURL: steward.base,
      viewport: { width: 1280, height: 860 },
      reducedMotion: 'reduce',
      extraHTTPHeaders: { 'x-forwarded-for': '203.0.113.7' },
    });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await steward?.stop();
  });

  it('asks for the setup token when Steward refuses without it, then creates the account', async () => {
    const password = 'Another-Strong-Passphrase-1';
    await page.goto('/');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/setup');
    await page.getByLabel('Username').fill('root-admin');
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(password);
    await page.getByRole('textbox', { name: 'Confirm password' }).fill(password);
    await page.getByRole('button', { name: 'Create administrator' }).click();
    await page.getByRole('alert').getByText('one-time setup token').waitFor();
    const tokenField = page.getByLabel('Setup token');
    await tokenField.waitFor();
    await expectAccessible(page, 'setup with token');
    await screenshot(page, 'setup-token');

    await tokenField.fill('not-the-token');
    await page.getByRole('button', { name: 'Create administrator' }).click();
    await page.getByRole('alert').getByText('one-time setup token').waitFor();

    const token = readFileSync(path.join(steward.dir, 'data', 'setup_token'), 'utf8').trim();
    await tokenField.fill(token);
    await page.getByRole('button', { name: 'Create administrator' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/login');
    await page.getByLabel('Username').fill('root-admin');
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    // Without an engine the dashboard says so.
    await page.getByText('engine unavailable').waitFor();
    await screenshot(page, 'setup-token-dashboard');
  });
});
