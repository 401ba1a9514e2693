import { BackupError } from '../errors/backup-errors.js';
import type { ApprovalSigner } from '../scripts/approval-signature.js';
import type { KeyRecord } from '../store/backup-records.js';
import { dispositionOf } from '../store/backup-keys.js';
import type { BackupRepository } from '../store/backup-repository.js';
import { keys } from '../store/keys.js';
import type { BackupContents } from './open-backup.js';
import { scriptRecordOf, withApprovalSignature } from './script-records.js';

export interface RestoreDeps {
  repo: Pick<BackupRepository, 'stewardKeys' | 'restore' | 'now'>;
  /** Signs with the restoring deployment's approval key. */
  signer: ApprovalSigner;
  /** Check value of that key, recorded as the store's (`approvals:key_check`). */
  approvalKeyCheck: string;
  /** The newest schema version this Steward understands. */
  schemaVersion: number;
}

export interface RestoreReport {
  records: number;
  auditEntries: number;
  /** Approvals signed with this deployment's approval key. */
  resigned: string[];
  /** Approved scripts restored as they were: their approval did not verify at the backup. */
  unverified: string[];
  /** Keys that had expired since the backup (pending pairings, old review requests). */
  expired: number;
  /** Steward keys deleted first (`force`). */
  replaced: number;
}

/** Keys that say nothing about a deployment's data: present in a store only ever started. */
const BOOKKEEPING = new Set([keys.secretsKeyCheck(), keys.executionStats()]);

/** What the store holds that a restore would replace, in words; null when nothing. */
function heldData(existing: readonly string[]): string | null {
  const data = existing.filter((k) => {
    const d = dispositionOf(k);
    return (d === 'kept' || d === 'audit') && !BOOKKEEPING.has(k);
  });
  if (data.length === 0) return null;
  const scripts = data.filter((k) => /^script:[^:]+$/.test(k)).length;
  const schedules = data.filter((k) => /^schedule:[^:]+$/.test(k)).length;
  const parts = [
    data.includes(keys.adminUser()) ? 'an administrator account' : null,
    scripts > 0 ? `${scripts} script(s)` : null,
    schedules > 0 ? `${schedules} schedule(s)` : null,
    data.includes(keys.auditLog()) ? 'an audit log' : null,
  ].filter((p) => p !== null);
  return `${data.length} key(s)${parts.length > 0 ? `: ${parts.join(', ')}` : ''}`;
}

/**
 * Approvals that verified when the backup was taken are signed with this deployment's key (the
 * file's HMAC proved the list is ours); any other approval is restored as it was and stays
 * unrunnable until an administrator approves it again.
 */
function resign(
  records: KeyRecord[],
  contents: BackupContents,
  signer: ApprovalSigner,
): Pick<RestoreReport, 'resigned' | 'unverified'> & { records: KeyRecord[] } {
  const vouched = new Set(contents.approvals.map((a) => JSON.stringify(a)));
  const resigned: string[] = [];
  const unverified: string[] = [];
  const out = records.map((record) => {
    const script = scriptRecordOf(record);
    if (!script || record.type !== 'hash' || !script.approved_hash) return record;
    const { name, approved_hash, approved_by, approved_at } = script;
    if (!approved_by || !approved_at) return record;
    const claim = JSON.stringify({ name, approved_hash, approved_by, approved_at });
    if (!vouched.has(claim)) {
      unverified.push(name);
      return record;
    }
    const approval_sig = signer.sign(script);
    // Signed only if it then holds: the text still hashes to what was approved.
    if (signer.check({ ...script, approval_sig }) !== null) {
      unverified.push(name);
      return record;
    }
    resigned.push(name);
    return withApprovalSignature(record, approval_sig);
  });
  return { records: out, resigned, unverified };
}

/**
 * Writes a verified backup (`openBackup`) into the store in one transaction. Refused, with the
 * store untouched, when the data is of a newer schema than this Steward's, or when the store
 * holds Steward data and `force` is not set (with `force` every Steward key under the prefix is
 * replaced, login sessions included).
 */
export async function restoreBackup(
  deps: RestoreDeps,
  contents: BackupContents,
  { force }: { force: boolean },
): Promise<RestoreReport> {
  const { header } = contents;
  if (header.schema_version > deps.schemaVersion) {
    throw new BackupError(
      'schema',
      `this backup holds data of schema version ${header.schema_version} (Steward ${header.data_written_by ?? header.release}), but this Steward understands schema versions up to ${deps.schemaVersion}: restore it with that release or a newer one. Nothing was restored`,
    );
  }
  const existing = await deps.repo.stewardKeys();
  const held = heldData(existing.keys);
  if (held && !force) {
    throw new BackupError(
      'not_empty',
      `the store under this prefix already holds Steward data (${held}); restore with --force to replace all of it. Nothing was restored`,
    );
  }
  const now = await deps.repo.now();
  const live = contents.records.filter((r) => r.expire_at_ms === null || r.expire_at_ms > now);
  const signed = resign(live, contents, deps.signer);
  await deps.repo.restore({
    replace: force ? existing.keys.filter((k) => !k.startsWith('bull:')) : [],
    records: signed.records,
    audit: { entries: contents.audit, head: header.audit.head, anchor: header.audit.anchor },
    meta: {
      schemaVersion: header.schema_version,
      writtenBy: header.data_written_by ?? header.release,
      approvalKeyCheck: deps.approvalKeyCheck,
    },
  });
  return {
    records: signed.records.length,
    auditEntries: contents.audit.length,
    resigned: signed.resigned,
    unverified: signed.unverified,
    expired: contents.records.length - live.length,
    replaced: force ? existing.keys.length : 0,
  };
}
