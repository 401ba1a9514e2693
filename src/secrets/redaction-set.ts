import { z } from 'zod';
import type { SecretCrypto } from './crypto.js';
import type { SecretEntry } from './redactor.js';

const setSchema = z.array(z.object({ name: z.string(), value: z.string() }));

/** The whole redaction set as one ciphertext, so a process loads it with one GET. */
export function sealRedactionSet(entries: readonly SecretEntry[], crypto: SecretCrypto): string {
  const sorted = [...entries].sort((a, b) => compareNames(a.name, b.name));
  return crypto.encryptRedactionSet(
    JSON.stringify(sorted.map(({ name, value }) => ({ name, value }))),
  );
}

export function openRedactionSet(blob: string, crypto: SecretCrypto): SecretEntry[] {
  const parsed = setSchema.safeParse(JSON.parse(crypto.decryptRedactionSet(blob)));
  // The issue list is not included: it could quote a value.
  if (!parsed.success) throw new Error('the stored redaction set has an unexpected shape');
  return parsed.data;
}

export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
