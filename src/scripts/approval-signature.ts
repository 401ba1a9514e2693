import { createHmac, timingSafeEqual } from 'node:crypto';
import { hashSource } from '../contracts/script-hashes.js';
import type { ScriptRecord } from '../contracts/script-record.js';

/**
 * Redis is trusted with data, not with authority (DESIGN "Approval integrity"): whoever can write
 * to it could mark a record approved, flip a pending status or swap a source under an approved
 * hash. An approval therefore carries an HMAC under a key that never enters Redis
 * (`src/secrets/approval-key.ts`), and a run checks it, and the source's own hash, before the
 * source is compiled.
 */

/** What an approval asserts: this administrator approved exactly this text of this script. */
export type ApprovalClaim = Pick<ScriptRecord, 'name' | 'approved_hash'> &
  Pick<ScriptRecord, 'approved_by' | 'approved_at'>;

/** Why a record's approval does not hold; named in the audit line of the refused run. */
export type ApprovalMismatch =
  'source_hash' | 'approved_hash' | 'missing_signature' | 'bad_signature' | 'incomplete';

export interface ApprovalSigner {
  /** The signature of a record's approval fields (they must all be set). */
  sign(record: ApprovalClaim): string;
  /** Null when the record's approval holds for its current source, else what did not match. */
  check(
    record: Pick<ScriptRecord, 'source' | 'hash' | 'approval_sig'> & ApprovalClaim,
  ): ApprovalMismatch | null;
}

/** Versioned, so a later change of the claim's fields can never verify an older signature. */
const DOMAIN = 'steward-approval-v1';

function message({ name, approved_hash, approved_by, approved_at }: ApprovalClaim): string {
  // A JSON array: no separator a name or an author could smuggle to shift fields.
  return JSON.stringify([DOMAIN, name, approved_hash, approved_by, approved_at]);
}

/**
 * Signs and checks with `keys[0]`; older keys (a rotation under way) still verify, so runs go on
 * while every record is re-signed.
 */
export function createApprovalSigner(keys: readonly Buffer[]): ApprovalSigner {
  const [current] = keys;
  if (current === undefined) throw new Error('an approval signer needs a key');
  const mac = (key: Buffer, claim: ApprovalClaim) =>
    createHmac('sha256', key).update(message(claim), 'utf8').digest();
  return {
    sign(claim) {
      if (!claim.approved_hash || !claim.approved_by || !claim.approved_at) {
        throw new Error(`script ${claim.name}: an approval needs its hash, author and time`);
      }
      return mac(current, claim).toString('base64url');
    },
    check(record) {
      if (!record.approved_hash || !record.approved_by || !record.approved_at) return 'incomplete';
      if (record.approved_hash !== record.hash) return 'approved_hash';
      if (hashSource(record.source) !== record.hash) return 'source_hash';
      if (!record.approval_sig) return 'missing_signature';
      const given = Buffer.from(record.approval_sig, 'base64url');
      for (const key of keys) {
        const expected = mac(key, record);
        if (given.length === expected.length && timingSafeEqual(given, expected)) return null;
      }
      return 'bad_signature';
    },
  };
}
