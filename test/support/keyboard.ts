import type { Page } from 'playwright-core';

/**
 * The controls of the current screen that Tab never reaches, walking the whole tab order from
 * the top. A control is anything a person can operate: links, buttons, fields, switches, and
 * elements given a tab stop; those outside the tab order by design are left out (a roving
 * group's other members: unselected tabs and unchecked radios, reached with the arrow keys).
 * An editor that keeps Tab for indenting is left with Escape first, as its help says.
 * Returns how many controls there are and each missed one as "tag: its text or label".
 */
export async function unreachableByTab(
  page: Page,
  maxPresses = 200,
): Promise<{ controls: number; missed: string[] }> {
  // Evaluated in the page (this file is compiled without the DOM types).
  const count = (await page.evaluate(`(() => {
    const selector = 'a[href], button, input, textarea, select, [tabindex], [contenteditable="true"]';
    let n = 0;
    for (const el of document.querySelectorAll(selector)) {
      el.removeAttribute('data-tab-probe');
      if (el.closest('[inert]') || el.disabled) continue;
      if (el.getAttribute('tabindex') === '-1') continue;
      if (el.type === 'hidden' || (el.type === 'radio' && !el.checked)) continue;
      if (el.getAttribute('role') === 'tab' && el.getAttribute('aria-selected') !== 'true') continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || style.display === 'none') continue;
      if (el.getClientRects().length === 0) continue;
      el.setAttribute('data-tab-probe', String(n++));
    }
    document.activeElement?.blur?.();
    window.scrollTo(0, 0);
    return n;
  })()`)) as number;
  const seen = new Set<string>();
  for (let i = 0; i < Math.min(maxPresses, count * 2 + 10); i++) {
    await page.keyboard.press('Tab');
    const probe = (await page.evaluate(
      `document.activeElement?.closest('[data-tab-probe]')?.getAttribute('data-tab-probe') ?? null`,
    )) as string | null;
    if (probe !== null) seen.add(probe);
    if (seen.size === count) break;
    // An editable code editor keeps Tab for indenting; Escape first lets the next Tab move on.
    if (
      await page.evaluate(
        `!!document.activeElement?.closest('.cm-content[contenteditable="true"]')`,
      )
    ) {
      await page.keyboard.press('Escape');
    }
  }
  const missed = (await page.evaluate(`[...document.querySelectorAll('[data-tab-probe]')]
    .filter((el) => !${JSON.stringify([...seen])}.includes(el.getAttribute('data-tab-probe')))
    .map((el) => el.tagName.toLowerCase() + ': ' + (el.getAttribute('aria-label') || el.textContent || el.getAttribute('name') || '').trim().slice(0, 40))`)) as string[];
  return { controls: count, missed };
}
