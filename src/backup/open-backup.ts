import { timingSafeEqual } from 'node:crypto';
import { BackupError } from '../errors/backup-errors.js';
import { keyFingerprint } from '../secrets/crypto.js';
import type { StoredAuditEntry } from '../store/audit-repository.js';
import type { KeyRecord } from '../store/backup-records.js';
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  backupHeaderSchema,
  backupLineSchema,
  backupMac,
  trailerSchema,
  type BackupHeader,
  type VouchedApproval,
} from './backup-format.js';

export interface BackupContents {
  header: BackupHeader;
  records: KeyRecord[];
  approvals: VouchedApproval[];
  audit: StoredAuditEntry[];
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

const damaged = (what: string) =>
  new BackupError('format', `this is not a complete Steward backup (${what}); nothing restored`);

/**
 * Reads a backup file and proves it is one this deployment's secrets key sealed, before anything
 * in it is believed: the header names the key's check value (so a file of another deployment
 * says so), then the HMAC over every byte before the trailer must hold. Only then are the lines
 * parsed. `keys` are the secrets keys present here (configured or file, and a staged one).
 */
export function openBackup(
  bytes: Buffer,
  keys: ReadonlyArray<{ key: Buffer; origin: string }>,
): BackupContents {
  const firstBreak = bytes.indexOf(0x0a);
  const headerText = bytes.subarray(0, Math.max(firstBreak, 0)).toString('utf8');
  const header = backupHeaderSchema.safeParse(parseJson(headerText));
  if (firstBreak < 0 || !header.success) {
    const format = (parseJson(headerText) as { format?: unknown } | undefined)?.format;
    if (format !== BACKUP_FORMAT) {
      throw new BackupError('format', 'this file is not a Steward backup; nothing restored');
    }
    throw damaged('its header does not read');
  }
  if (header.data.format_version > BACKUP_FORMAT_VERSION) {
    throw new BackupError(
      'format',
      `this backup is of format version ${header.data.format_version}, written by Steward ${header.data.release}; this Steward reads format version ${BACKUP_FORMAT_VERSION}: restore it with that release or a newer one`,
    );
  }
  const key = keys.find((k) => keyFingerprint(k.key) === header.data.secrets_key)?.key;
  if (!key) {
    const where =
      keys.length === 0
        ? 'there is no secrets key here'
        : `the secrets key here (${keys.map((k) => k.origin).join(', ')}) is another one`;
    throw new BackupError(
      'secrets_key',
      `this backup is sealed with the secrets key of the deployment that made it (check value ${header.data.secrets_key.slice(0, 19)}…), and ${where}. Restoring needs that same key: set STEWARD_SECRETS_KEY, or put it in <data>/secrets_key, then restore again. Nothing was restored`,
    );
  }
  if (bytes[bytes.length - 1] !== 0x0a) throw damaged('it is cut short');
  // Where the trailer begins: every byte before it is what the HMAC covers.
  const signedEnd = bytes.lastIndexOf(0x0a, bytes.length - 2) + 1;
  const trailer = trailerSchema.safeParse(
    parseJson(bytes.subarray(signedEnd, bytes.length - 1).toString('utf8')),
  );
  if (signedEnd <= firstBreak || !trailer.success) {
    throw damaged('its HMAC line is missing: the file is cut short');
  }
  const expected = backupMac(key).update(bytes.subarray(0, signedEnd)).digest();
  const given = Buffer.from(trailer.data.hmac, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new BackupError(
      'altered',
      'this backup does not verify under its secrets key: it was changed or damaged after it was written. Nothing was restored',
    );
  }
  const contents: BackupContents = { header: header.data, records: [], approvals: [], audit: [] };
  const body = bytes
    .subarray(firstBreak + 1, signedEnd)
    .toString('utf8')
    .split('\n');
  body.pop();
  for (const [i, line] of body.entries()) {
    const parsed = backupLineSchema.safeParse(parseJson(line));
    if (!parsed.success) throw damaged(`line ${i + 2} does not read`);
    const value = parsed.data;
    if ('record' in value) contents.records.push(value.record);
    else if ('approvals' in value) contents.approvals.push(...value.approvals);
    else contents.audit.push(...value.audit.map(([id, json, hash]) => ({ id, json, hash })));
  }
  if (contents.records.length !== header.data.records) throw damaged('records are missing');
  if (contents.audit.length !== header.data.audit.entries) {
    throw damaged('audit entries are missing');
  }
  return contents;
}
