import { BackupError } from '../errors/backup-errors.js';
import type { ApprovalSigner } from '../scripts/approval-signature.js';
import { hashSource } from '../contracts/script-hashes.js';
import { keyFingerprint } from '../secrets/crypto.js';
import type { KeyRecord } from '../store/backup-records.js';
import type { BackupRepository, Snapshot } from '../store/backup-repository.js';
import { keys } from '../store/keys.js';
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  backupMac,
  type BackupHeader,
  type BackupLine,
  type VouchedApproval,
} from './backup-format.js';
import { scriptRecords } from './script-records.js';

export interface CreateBackupDeps {
  repo: Pick<BackupRepository, 'snapshot' | 'auditEntries'>;
  /** The key the stored secrets are encrypted with; it seals the file. */
  secretsKey: Buffer;
  /** Checks approvals with this deployment's approval key(s); null when it has none. */
  verifier: ApprovalSigner | null;
  /**
   * Whether this deployment has signed the unsigned approvals of release 1 (the marker file of
   * `src/cli/migrations.ts`). Until it has, data of schema 1 holds genuine unsigned approvals,
   * which the migration would sign; after, an unsigned approval in Redis is a forgery.
   */
  legacyApprovalsSigned: boolean;
  release: string;
  prefix: string;
}

export interface BackupSummary {
  snapshot: Pick<Snapshot, 'method' | 'attempts' | 'unknown_keys' | 'at_ms'>;
  header: BackupHeader;
  vouched: number;
}

/**
 * The approvals a restore may sign again: those that verify now under this deployment's key,
 * and, in data of schema 1 not yet migrated here, the unsigned approvals the migration to
 * schema 2 would sign (their source still hashing to the approved hash).
 */
export function vouchedApprovals(
  records: readonly KeyRecord[],
  verifier: ApprovalSigner | null,
  legacyTrusted: boolean,
): VouchedApproval[] {
  const vouched: VouchedApproval[] = [];
  for (const record of scriptRecords(records)) {
    const { name, approved_hash, approved_by, approved_at } = record;
    if (!approved_hash || !approved_by || !approved_at) continue;
    const verified = verifier?.check(record) === null;
    // What the migration to schema 2 checks before it signs: the text is the one approved.
    const legacy =
      legacyTrusted &&
      record.approval_sig === undefined &&
      approved_hash === record.hash &&
      hashSource(record.source) === record.hash;
    if (verified || legacy) {
      vouched.push({ name, approved_hash, approved_by, approved_at });
    }
  }
  return vouched;
}

/**
 * The backup file, line by line (each ending in `\n`), its HMAC last. The snapshot is taken when
 * the first line is asked for; audit entries are read page by page as the file is written, so a
 * long chain is never held whole.
 */
export async function* backupLines(
  deps: CreateBackupDeps,
  onSummary?: (summary: BackupSummary) => void,
): AsyncGenerator<string> {
  const snapshot = await deps.repo.snapshot();
  const keyCheck = snapshot.records.find((r) => r.key === keys.secretsKeyCheck());
  const fingerprint = keyFingerprint(deps.secretsKey);
  if (keyCheck && keyCheck.type === 'string' && keyCheck.value !== fingerprint) {
    throw new BackupError(
      'secrets_key',
      'the secrets key here is not the key the stored secrets are encrypted with: a backup sealed with it could not be restored. Use the deployment\u2019s key (STEWARD_SECRETS_KEY or <data>/secrets_key)',
    );
  }
  const schemaVersion = snapshot.schema.version ?? 1;
  const vouched = vouchedApprovals(
    snapshot.records,
    deps.verifier,
    schemaVersion === 1 && !deps.legacyApprovalsSigned,
  );
  const header: BackupHeader = {
    format: BACKUP_FORMAT,
    format_version: BACKUP_FORMAT_VERSION,
    schema_version: schemaVersion,
    data_written_by: snapshot.schema.written_by,
    release: deps.release,
    taken_at: new Date(snapshot.at_ms).toISOString(),
    prefix: deps.prefix,
    secrets_key: fingerprint,
    records: snapshot.records.length,
    audit: {
      entries: snapshot.audit.count,
      head: snapshot.audit.head,
      anchor: snapshot.audit.anchor,
    },
  };
  onSummary?.({ snapshot, header, vouched: vouched.length });
  const mac = backupMac(deps.secretsKey);
  const emit = (value: BackupHeader | BackupLine) => {
    const line = `${JSON.stringify(value)}\n`;
    mac.update(line, 'utf8');
    return line;
  };
  yield emit(header);
  for (const record of snapshot.records) yield emit({ record });
  yield emit({ approvals: vouched });
  let written = 0;
  for await (const page of deps.repo.auditEntries(snapshot.audit)) {
    written += page.length;
    yield emit({ audit: page.map((e) => [e.id, e.json, e.hash]) });
  }
  if (written !== snapshot.audit.count) {
    throw new BackupError(
      'contended',
      `the audit log changed while the backup read it (${written} entries read, ${snapshot.audit.count} expected); run the backup again`,
    );
  }
  yield `${JSON.stringify({ hmac: mac.digest('hex') })}\n`;
}
