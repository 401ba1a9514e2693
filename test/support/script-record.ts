import { hashSource } from '../../src/scripts/hashing.js';
import { parseMetadata } from '../../src/scripts/metadata.js';
import type { ScriptRecord } from '../../src/scripts/script-schema.js';

/** A stored record of `source`, approved at its current hash, as the repository decodes one. */
export function approvedRecord(
  name: string,
  source: string,
  overrides: Partial<ScriptRecord> = {},
): ScriptRecord {
  const hash = hashSource(source);
  return {
    name,
    source,
    hash,
    status: 'approved',
    approved_hash: hash,
    metadata: parseMetadata(source),
    created_at: '2026-01-01T00:00:00.000Z',
    modified_at: '2026-01-01T00:00:00.000Z',
    head: '0'.repeat(40),
    ...overrides,
  };
}
