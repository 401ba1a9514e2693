import type { TestApp } from './app.js';

/** Polls `check` every 50 ms until it returns something truthy; throws after `ms`. */
export async function waitUntil<T>(
  check: () => T | undefined | null | false,
  ms: number,
  what: string,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting on ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface DeliveredRun {
  output: string;
  delivery?: { status: string; error?: string };
}

/** The newest run of schedule `id` once its delivery has an outcome (not `pending`). */
export async function waitForDelivery(
  t: TestApp,
  id: string,
  auth: Record<string, string>,
): Promise<DeliveredRun> {
  const until = Date.now() + 60_000;
  for (;;) {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/schedules/${id}/runs`,
      headers: auth,
    });
    const entry = (res.json() as { runs: DeliveredRun[] }).runs[0];
    if (entry?.delivery && entry.delivery.status !== 'pending') return entry;
    if (Date.now() > until) throw new Error(`no delivery outcome: ${res.body}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
