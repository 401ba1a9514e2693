import type { ScriptRecord } from '../contracts/script-record.js';
import { decodeScript } from '../contracts/script-record.js';
import type { KeyRecord } from '../store/backup-records.js';
import { keys } from '../store/keys.js';

type HashRecord = Extract<KeyRecord, { type: 'hash' }>;

/** A hash record's fields as text; null when one is not text (no script record is like that). */
function textFields(record: HashRecord): Record<string, string> | null {
  const fields: Record<string, string> = {};
  for (const [field, value] of record.value) {
    if (typeof field !== 'string' || typeof value !== 'string') return null;
    fields[field] = value;
  }
  return fields;
}

/** The script record stored under `key`, when it is one. */
export function scriptRecordOf(record: KeyRecord): ScriptRecord | null {
  if (record.type !== 'hash') return null;
  const fields = textFields(record);
  const decoded = fields ? decodeScript(fields) : null;
  return decoded && record.key === keys.script(decoded.name) ? decoded : null;
}

/** Every script record among `records` whose name the script index lists. */
export function scriptRecords(records: readonly KeyRecord[]): ScriptRecord[] {
  const index = records.find((r) => r.key === keys.scriptIndex());
  const names = new Set(
    index?.type === 'set' ? index.value.filter((n) => typeof n === 'string') : [],
  );
  return records
    .map(scriptRecordOf)
    .filter((r): r is ScriptRecord => r !== null && names.has(r.name));
}

/** The record with `approval_sig` set to `signature`, every other field as it was. */
export function withApprovalSignature(record: HashRecord, signature: string): HashRecord {
  return {
    ...record,
    value: [
      ...record.value.filter(([field]) => field !== 'approval_sig'),
      ['approval_sig', signature],
    ],
  };
}
