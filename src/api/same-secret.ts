import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares a secret a caller sent with the expected one in constant time. Digests first, so the
 * comparison takes the same time whatever the lengths.
 */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
