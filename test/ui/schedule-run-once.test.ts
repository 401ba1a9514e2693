import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  launchChromium,
  screenshot,
  startSteward,
  type RunningSteward,
} from '../support/browser.js';

/**
 * A run-once schedule fires while its page is open in the UI; the administrator then renames it
 * on that page. The save must not carry the page's stale "enabled" back: the UI sends only the
 * fields the person changed, and shows the schedule as it is after the save.
 */
const ADMIN = { username: 'admin', password: 'correct horse battery staple' };

interface Schedule {
  id: string;
  name: string;
  enabled: boolean;
  last_run_at?: string | null;
}

describe('a run-once schedule that fires while its page is open', { timeout: 180_000 }, () => {
  let steward: RunningSteward;
  let browser: Browser;
  let page: Page;
  let api: (method: string, url: string, body?: unknown) => Promise<{ status: number; body: any }>;

  beforeAll(async () => {
    steward = await startSteward(null);
    const setup = await fetch(`${steward.base}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ADMIN, confirm_password: ADMIN.password }),
    });
    expect(setup.status).toBe(200);
    api = await loginApi(steward.base);
    browser = await launchChromium();
    const context = await browser.newContext({ baseURL: steward.base, reducedMotion: 'reduce' });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await steward?.stop();
  });

  it('stays disabled after a rename saved from the page, which then shows it disabled', async () => {
    const source = 'def main():\n    return "fired"\n';
    const created = await api('POST', '/api/scripts', { name: 'once.star', source });
    expect(created.status).toBe(201);
    const approved = await api('POST', '/api/scripts/once.star/approve', {
      hash: created.body.hash,
    });
    expect(approved.status).toBe(200);
    const made = await api('POST', '/api/schedules', {
      name: 'once',
      type: 'script',
      script_name: 'once.star',
      // Never by the clock during the test: it fires when the test says.
      cron_expr: '0 0 1 1 *',
      enabled: true,
      run_once: true,
    });
    expect(made.status).toBe(201);
    const id = (made.body as Schedule).id;

    await page.goto('/login');
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.goto(`/schedules/${id}`);
    const name = page.getByLabel('Name');
    await expect.poll(() => name.inputValue()).toBe('once');
    const enabled = page.getByRole('switch', { name: 'Enabled' });
    expect(await enabled.isChecked()).toBe(true);

    // It fires (as its cron would) while the page still shows it enabled.
    expect((await api('POST', `/api/schedules/${id}/run`)).status).toBe(200);
    await expect
      .poll(async () => (await api('GET', `/api/schedules/${id}`)).body as Schedule, {
        timeout: 30_000,
        interval: 250,
      })
      .toMatchObject({ enabled: false, last_run_at: expect.any(String) });
    expect(await enabled.isChecked()).toBe(true);

    const sent: unknown[] = [];
    page.on('request', (req) => {
      if (req.method() === 'PUT' && req.url().includes(`/api/schedules/${id}`)) {
        sent.push(req.postDataJSON());
      }
    });
    await name.fill('once renamed');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();

    const after = (await api('GET', `/api/schedules/${id}`)).body as Schedule;
    expect(after).toMatchObject({ name: 'once renamed', enabled: false });
    // Only what the person changed went to the server.
    expect(sent).toEqual([{ name: 'once renamed' }]);
    // The page reloaded the schedule: it shows what the server has.
    await expect.poll(() => enabled.isChecked()).toBe(false);
    await expect.poll(() => name.inputValue()).toBe('once renamed');
    await screenshot(page, 'schedule-run-once-renamed');
  });
});

/** A second client of the API: login, then the access token from the refresh cookie. */
async function loginApi(base: string) {
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
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
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
}
