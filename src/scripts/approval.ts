import type { ScriptRefusal } from '../errors/script-errors.js';
import type { ScriptRecord } from '../contracts/script-record.js';

/** Whether a script may run, and which source: the approved hash, or why not. */
export type RefusalReason = ScriptRefusal;

export type ApprovalVerdict =
  { runnable: true; hash: string } | { runnable: false; reason: RefusalReason };

export interface ApprovalOptions {
  /** Hash of the script's file in the scripts directory; null or absent when there is none. */
  fileHash?: string | null;
  /** Allowlisted names run their current source without approval (tool server rule 1). */
  allowUnapproved?: boolean;
}

/**
 * The approval rule, in one place: the worker applies it to every job (authoritative), callers
 * apply it first to answer a refusal without a round trip through the queue.
 */
export function checkApproval(
  record: Pick<ScriptRecord, 'status' | 'hash' | 'approved_hash'>,
  { fileHash = null, allowUnapproved = false }: ApprovalOptions = {},
): ApprovalVerdict {
  if (allowUnapproved) return { runnable: true, hash: record.hash };
  if (record.status === 'rejected') return { runnable: false, reason: 'rejected' };
  const approved = record.approved_hash;
  if (approved !== undefined) {
    // A file edited after approval is a change even before it is imported.
    if (record.hash !== approved || (fileHash !== null && fileHash !== approved)) {
      return { runnable: false, reason: 'modified' };
    }
  }
  if (record.status !== 'approved' || approved === undefined) {
    return { runnable: false, reason: 'pending' };
  }
  return { runnable: true, hash: approved };
}
