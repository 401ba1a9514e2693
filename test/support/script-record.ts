import { createApprovalSigner } from '../../src/scripts/approval-signature.js';
import { hashSource } from '../../src/contracts/script-hashes.js';
import { parseMetadata } from '../../src/scripts/metadata.js';
import type { ScriptRecord } from '../../src/contracts/script-record.js';
import { openApprovalKey } from '../../src/secrets/approval-key.js';
import { createMetaRepository } from '../../src/store/meta-repository.js';
import type { Context } from '../../src/runtime/context.js';

/** The approval key of unit tests (no data dir): records below are signed with it. */
export const testSigner = createApprovalSigner([Buffer.alloc(32, 7)]);

/** The signer a deployment under `ctx` uses: its data dir's key, as every role opens it. */
export async function deploymentSigner(ctx: Pick<Context, 'config' | 'redis'>) {
  return createApprovalSigner(
    (await openApprovalKey(ctx.config, createMetaRepository(ctx.redis))).keys,
  );
}

/**
 * A stored record of `source`, approved at its current hash, as the repository decodes one,
 * signed with `signer` (the unit tests' key by default) unless the overrides say otherwise.
 */
export function approvedRecord(
  name: string,
  source: string,
  overrides: Partial<ScriptRecord> = {},
  signer = testSigner,
): ScriptRecord {
  const hash = hashSource(source);
  const approval = {
    name,
    approved_hash: hash,
    approved_by: 'admin',
    approved_at: '2026-01-01T00:00:00.000Z',
  };
  return {
    source,
    hash,
    status: 'approved',
    ...approval,
    approval_sig: signer.sign(approval),
    metadata: parseMetadata(source),
    created_at: '2026-01-01T00:00:00.000Z',
    modified_at: '2026-01-01T00:00:00.000Z',
    head: '0'.repeat(40),
    ...overrides,
  };
}
