import { createHmac, hkdfSync } from 'node:crypto';
import { z } from 'zod';
import { keyRecordSchema } from '../store/backup-records.js';

/**
 * A backup file: JSON lines, UTF-8.
 * 1. the header (`backupHeaderSchema`);
 * 2. one `{"record": …}` per key the store keeps (`src/store/backup-records.ts`);
 * 3. one `{"approvals": […]}`: the approvals that verified when the backup was taken;
 * 4. `{"audit": [[id, json, hash], …]}` lines: the audit chain, oldest first;
 * 5. the trailer `{"hmac": "<hex>"}`: HMAC-SHA256 of every byte before it, under a key derived
 *    from the secrets key. Only a holder of that key can make a file a restore accepts, so the
 *    approvals it lists may be signed again with the restoring deployment's approval key.
 * Secret values are in it only as the ciphertexts Redis holds.
 */
export const BACKUP_FORMAT = 'steward-backup';
export const BACKUP_FORMAT_VERSION = 1;

export const backupHeaderSchema = z.strictObject({
  format: z.literal(BACKUP_FORMAT),
  format_version: z.number().int().positive(),
  /** The schema version of the data (`src/store/migrations.ts`). */
  schema_version: z.number().int().positive(),
  /** The release that last migrated or first wrote the data, when the store said. */
  data_written_by: z.string().nullable(),
  /** The release that took the backup. */
  release: z.string(),
  /** The snapshot's point (Redis's clock). */
  taken_at: z.iso.datetime(),
  /** The key prefix of the deployment it was taken from (a restore writes under its own). */
  prefix: z.string(),
  /** One-way check value of the secrets key it is sealed with (`keyFingerprint`). */
  secrets_key: z.string(),
  records: z.number().int().nonnegative(),
  audit: z.strictObject({
    entries: z.number().int().nonnegative(),
    head: z.string(),
    anchor: z.string(),
  }),
});
export type BackupHeader = z.infer<typeof backupHeaderSchema>;

/** What an approval asserts (`src/scripts/approval-signature.ts` `ApprovalClaim`). */
export const approvalClaimSchema = z.strictObject({
  name: z.string(),
  approved_hash: z.string(),
  approved_by: z.string(),
  approved_at: z.string(),
});
export type VouchedApproval = z.infer<typeof approvalClaimSchema>;

export const backupLineSchema = z.union([
  z.strictObject({ record: keyRecordSchema }),
  z.strictObject({ approvals: z.array(approvalClaimSchema) }),
  z.strictObject({ audit: z.array(z.tuple([z.string(), z.string(), z.string()])) }),
]);
export type BackupLine = z.infer<typeof backupLineSchema>;

export const trailerSchema = z.strictObject({ hmac: z.string().regex(/^[0-9a-f]{64}$/) });

/** The MAC key: derived, so the secrets key itself never signs anything but secrets. */
function macKey(secretsKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'steward backup v1', 32));
}

export function backupMac(secretsKey: Buffer) {
  return createHmac('sha256', macKey(secretsKey));
}

/** `steward-backup-20260101-031500.jsonl`: sorts by time, says what it is. */
export function backupFileName(at: Date): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `steward-backup-${stamp}.jsonl`;
}
