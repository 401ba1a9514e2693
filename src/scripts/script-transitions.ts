import { ConflictError } from '../errors/request-errors.js';
import { ScriptRefusedError } from '../errors/script-errors.js';
import { parseMetadata } from './metadata.js';
import type { ScriptRecord, VersionRecord } from '../contracts/script-record.js';

/**
 * The review state machine of a script: what creating, modifying, approving and rejecting do to
 * its status and approval fields, and which of those transitions are refused. Pure functions;
 * the script service applies them under the script's lock.
 */

/** A new script: pending, its first version as head. */
export function created(name: string, version: VersionRecord): ScriptRecord {
  return {
    name,
    source: version.source,
    hash: version.hash,
    status: 'pending',
    metadata: parseMetadata(version.source),
    created_at: version.timestamp,
    modified_at: version.timestamp,
    head: version.commit,
  };
}

/**
 * The current record with a new source: new hash, new head, back to pending. `approved_hash`
 * stays, so a run can tell "modified since approval" from "never approved".
 */
export function modified(current: ScriptRecord, version: VersionRecord): ScriptRecord {
  const next: ScriptRecord = {
    ...current,
    source: version.source,
    hash: version.hash,
    status: 'pending',
    metadata: parseMetadata(version.source),
    modified_at: version.timestamp,
    head: version.commit,
  };
  delete next.approved_at;
  delete next.approved_by;
  delete next.approval_sig;
  delete next.rejected_at;
  delete next.rejected_by;
  delete next.reason;
  return next;
}

/**
 * Approves the current hash; `expectedHash` guards against approving a text not reviewed. Returns
 * `current` itself when nothing changes (already approved at this hash, by an approval that
 * `holds`); an approval that does not hold (unsigned, forged) is replaced by this one.
 */
export function approved(
  current: ScriptRecord,
  by: string,
  at: string,
  expectedHash?: string,
  holds: (record: ScriptRecord) => boolean = () => true,
): ScriptRecord {
  if (expectedHash !== undefined && expectedHash !== current.hash) {
    throw new ScriptRefusedError(
      current.name,
      'modified',
      `script ${current.name} changed: its hash is ${current.hash}, not ${expectedHash}`,
    );
  }
  // Approving what is already approved keeps the original approval's time and author.
  if (current.status === 'approved' && current.approved_hash === current.hash && holds(current)) {
    return current;
  }
  const next: ScriptRecord = {
    ...current,
    status: 'approved',
    approved_at: at,
    approved_by: by,
    approved_hash: current.hash,
  };
  delete next.rejected_at;
  delete next.rejected_by;
  delete next.reason;
  return next;
}

export function rejected(
  current: ScriptRecord,
  by: string,
  at: string,
  reason: string,
  expectedHash?: string,
): ScriptRecord {
  if (expectedHash !== undefined && expectedHash !== current.hash) {
    throw new ScriptRefusedError(
      current.name,
      'modified',
      `script ${current.name} changed: its hash is ${current.hash}, not ${expectedHash}`,
    );
  }
  if (current.status === 'rejected') {
    throw new ConflictError(`script ${current.name} is already rejected`);
  }
  const next: ScriptRecord = {
    ...current,
    status: 'rejected',
    rejected_at: at,
    rejected_by: by,
    reason,
  };
  delete next.approved_at;
  delete next.approved_by;
  delete next.approved_hash;
  delete next.approval_sig;
  return next;
}
