import type { Thread } from './value.js';

/**
 * Charges execution steps for work proportional to `n` (characters or elements) done inside
 * a single operation, so that step limits also bound loops of cheap-looking calls on big
 * values. One step per 32 units keeps small operations free.
 */
export function chargeWork(thread: Thread | null, n: number): void {
  if (n >= 64 && thread !== null) thread.steps(n >>> 5);
}
