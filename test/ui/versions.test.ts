import type { Browser, Page } from 'playwright-core';
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
 * A script's versions tell their story, against a real `steward start`: a version approved
 * through the API and its successor rejected in this browser each say so, by whom and through
 * which channel; the Run control of the rejected script says why it is unavailable before any
 * click; "Restore the last approved version" asks first, brings that text back approved in one
 * action and says so; the header's version and hash match the versions list; a pending change
 * keeps the Run control unavailable and names the approved version that keeps running.
 */
const V1 = 'def main():\n    return "first"\n';
const V2 = 'def main():\n    return "second"\n';
const V4 = 'def main():\n    return "fourth"\n';

describe('the versions of a script', { timeout: 240_000 }, () => {
  let steward: RunningSteward;
  let browser: Browser;
  let page: Page;
  let api: ApiCall;
  let v1Hash: string;
  let v1Commit: string;

  beforeAll(async () => {
    steward = await startSteward(null);
    api = await setupAdmin(steward.base);
    const created = await api('POST', '/api/scripts', { name: 'story.star', source: V1 });
    expect(created.status).toBe(201);
    v1Hash = created.body.hash;
    expect((await api('POST', '/api/scripts/story.star/approve', { hash: v1Hash })).status).toBe(
      200,
    );
    expect((await api('PUT', '/api/scripts/story.star', { source: V2 })).status).toBe(200);
    v1Commit = (await api('GET', '/api/scripts/story.star/history')).body.versions[1].commit;
    browser = await launchChromium();
    const context = await browser.newContext({
      baseURL: steward.base,
      viewport: { width: 1280, height: 900 },
      reducedMotion: 'reduce',
    });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await uiLogin(page);
  }, 180_000);

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' && page) {
      await screenshot(page, `versions-failed-${ctx.task.name.slice(0, 30).replace(/\W+/g, '-')}`);
    }
  });

  afterAll(async () => {
    await browser?.close();
    await steward?.stop();
  });

  const version = (commit: string) =>
    page.getByRole('row', { name: `Version ${commit.slice(0, 8)}` });

  it('a rejected script: each version says who decided through what; Run says why not', async () => {
    await page.goto('/scripts/story.star/review');
    await page.getByRole('button', { name: 'Reject…' }).click();
    await page.getByRole('dialog').getByLabel('Reason').fill('Says second, should say first.');
    await page.getByRole('dialog').getByRole('button', { name: 'Reject', exact: true }).click();
    await page.getByText('story.star rejected.').waitFor();

    await page.getByRole('tab', { name: 'Test run' }).click();
    const run = page.getByRole('button', { name: 'Run test' });
    expect(await run.isDisabled()).toBe(true);
    await page.getByText('This script is rejected: nothing of it runs.').waitFor();
    expect(await run.getAttribute('aria-describedby')).toBe('run-unavailable');

    await page.getByRole('tab', { name: 'Versions' }).click();
    const v2Commit = (await api('GET', '/api/scripts/story.star/history')).body.versions[0].commit;
    await version(v2Commit).waitFor();
    expect(await version(v2Commit).textContent()).toMatch(
      /current.*rejected by admin through web UI.*“Says second, should say first\.”/,
    );
    expect(await version(v1Commit).textContent()).toMatch(/approved by admin through API/);
    // The header's hash is the current version's, in the list too.
    const v2Hash = (await api('GET', '/api/scripts/story.star')).body.hash as string;
    expect(
      await page.getByText(`Version ${v2Commit.slice(0, 8)} (current), text hash`).count(),
    ).toBe(1);
    expect(await version(v2Commit).textContent()).toContain(
      `${v2Hash} (the hash at the top of the page)`,
    );
    await expectAccessible(page, 'versions of a rejected script');
    await screenshot(page, 'versions-rejected');
  });

  it('restores the last approved version in one confirmed action, and says so', async () => {
    await page.getByRole('button', { name: 'Restore the last approved version' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('approved again at once').waitFor();
    await dialog.getByRole('button', { name: 'Restore and approve' }).click();
    await page.getByText(`Restored the last approved version ${v1Commit.slice(0, 8)}`).waitFor();
    const after = (await api('GET', '/api/scripts/story.star')).body;
    expect(after).toMatchObject({ status: 'approved', hash: v1Hash, source: V1 });
    const versions = (await api('GET', '/api/scripts/story.star/history')).body.versions;
    expect(versions).toHaveLength(3);
    const head = versions[0].commit as string;
    await expect
      .poll(() => version(head).textContent())
      .toMatch(new RegExp(`restored by admin through web UI.*from ${v1Commit.slice(0, 8)}`));
    expect(await version(head).textContent()).toMatch(/approved by admin through web UI/);
    expect(
      await page.getByRole('button', { name: 'Restore the last approved version' }).count(),
    ).toBe(0);

    await page.getByRole('tab', { name: 'Test run' }).click();
    const run = page.getByRole('button', { name: 'Run test' });
    expect(await run.isDisabled()).toBe(false);
    await screenshot(page, 'versions-restored');
  });

  it('a pending change: Run stays unavailable and the approved version is named', async () => {
    const approvedHead = (await api('GET', '/api/scripts/story.star/history')).body.versions[0]
      .commit as string;
    expect((await api('PUT', '/api/scripts/story.star', { source: V4 })).status).toBe(200);
    await page.reload();
    await page
      .getByText(`version ${approvedHead.slice(0, 8)} is the approved one and runs until`)
      .waitFor();
    await page.getByRole('tab', { name: 'Test run' }).click();
    expect(await page.getByRole('button', { name: 'Run test' }).isDisabled()).toBe(true);
    await page.getByText('This text waits for your review').waitFor();
    await expectAccessible(page, 'pending script, test run');

    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('tab', { name: 'Versions' }).click();
    await version(approvedHead).waitFor();
    await expect
      .poll(async () => ({ width: await pageWidth(page), wide: await overflowing(page) }))
      .toEqual({ width: 390, wide: [] });
    await expectAccessible(page, 'versions on a phone');
    await screenshot(page, 'versions-phone');
  });
});
