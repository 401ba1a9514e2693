import type { Logger } from '../log/logger.js';
import type { ScriptRepository } from '../store/script-repository.js';
import type { ApprovalSigner } from './approval-signature.js';
import type { ScriptRecord } from '../contracts/script-record.js';

/** Upkeep of the approval signatures of every stored script: the first signing and rotations. */

type Store = Pick<ScriptRepository, 'names' | 'get' | 'commit' | 'withLock'>;

export interface ApprovalUpkeepReport {
  signed: string[];
  /** Approvals left as they were: they do not verify and need an administrator again. */
  unsigned: string[];
}

const isApproval = (r: ScriptRecord) => r.status === 'approved' && r.approved_hash !== undefined;

/**
 * Signs the approvals a release before signatures wrote (schema 1 → 2). Only while `trusted`:
 * once this deployment has signed them (a marker outside Redis says so), a record without a
 * signature can only be a forgery, and a schema version rolled back in Redis must not launder it.
 * An approval whose source no longer matches its hash is never signed.
 */
export async function signLegacyApprovals(
  store: Store,
  signer: ApprovalSigner,
  { trusted, log }: { trusted: boolean; log: Logger },
): Promise<ApprovalUpkeepReport> {
  return forEachApproval(store, (record) => {
    if (record.approval_sig !== undefined) return 'keep';
    if (!trusted || signer.check(record) !== 'missing_signature') {
      log.warn(
        {
          audit: true,
          event: 'script.approval.unsigned',
          script: record.name,
          reason: trusted ? signer.check(record) : 'already_migrated',
        },
        'an approval without a valid signature was not signed: an administrator must approve the script again',
      );
      return 'leave';
    }
    return { ...record, approval_sig: signer.sign(record) };
  });
}

/**
 * A key rotation: every approval that verifies under `verifier` (old and new key) is signed again
 * by `signer` (the new key). Approvals that do not verify stay as they are, and still do not run.
 */
export async function resignApprovals(
  store: Store,
  verifier: ApprovalSigner,
  signer: ApprovalSigner,
): Promise<ApprovalUpkeepReport> {
  return forEachApproval(store, (record) =>
    verifier.check(record) === null ? { ...record, approval_sig: signer.sign(record) } : 'leave',
  );
}

async function forEachApproval(
  store: Store,
  change: (record: ScriptRecord) => ScriptRecord | 'keep' | 'leave',
): Promise<ApprovalUpkeepReport> {
  const report: ApprovalUpkeepReport = { signed: [], unsigned: [] };
  for (const name of await store.names()) {
    await store.withLock(name, async () => {
      const record = await store.get(name);
      if (!record || !isApproval(record)) return;
      const next = change(record);
      if (next === 'keep') return;
      if (next === 'leave') {
        report.unsigned.push(name);
        return;
      }
      await store.commit(next);
      report.signed.push(name);
    });
  }
  return report;
}
