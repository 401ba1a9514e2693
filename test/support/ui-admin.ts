import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** The administrator the browser tests set up and log in as. */
export const ADMIN = { username: 'admin', password: 'correct horse battery staple' };

export type ApiCall = (
  method: string,
  url: string,
  body?: unknown,
) => Promise<{ status: number; body: any }>;

/** Creates the administrator of a fresh `steward start`, then logs a second client in. */
export async function setupAdmin(base: string): Promise<ApiCall> {
  // A loaded machine may answer 503 ("starting", store not reached yet), or drop a connection,
  // for a moment.
  let setup: Response | null;
  for (let tries = 0; ; tries++) {
    setup = await fetch(`${base}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ADMIN, confirm_password: ADMIN.password }),
    }).catch((err: Error) => {
      if (tries === 120) throw err;
      return null;
    });
    if ((setup && setup.status !== 503) || tries === 120) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  expect(setup?.status, await setup?.clone().text()).toBe(200);
  return loginApi(base);
}

/** A client of the API beside the browser: login, then the access token from the cookie. */
export async function loginApi(base: string): Promise<ApiCall> {
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const session = await fetch(`${base}/api/session`, { headers: { cookie } });
  const { access_token: token } = (await session.json()) as { access_token: string };
  return async (method, url, body) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
}

/** Logs the browser in through the login screen. */
export async function uiLogin(page: Page): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(ADMIN.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
}

/** Width of the page's content: wider than the viewport means the page scrolls sideways. */
export async function pageWidth(page: Page): Promise<number> {
  return (await page.evaluate('document.documentElement.scrollWidth')) as number;
}

/** The innermost elements reaching past the right edge of the viewport, to say what widens it. */
export async function overflowing(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const w = document.documentElement.clientWidth;
    const out = [];
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.right <= w + 0.5 || r.width === 0) continue;
      if ([...el.children].some((c) => c.getBoundingClientRect().right > w + 0.5)) continue;
      // Inside a box that scrolls (or clips) within the screen: that box holds it.
      let clipped = false;
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const o = getComputedStyle(a).overflowX;
        if (o !== 'visible' && a.getBoundingClientRect().right <= w + 0.5) clipped = true;
      }
      if (clipped) continue;
      out.push(el.tagName.toLowerCase() + '.' + [...el.classList].join('.') + ' ' + Math.round(r.right) + ': ' + (el.textContent || '').slice(0, 40));
    }
    return out.slice(0, 10);
  })()`)) as string[];
}
