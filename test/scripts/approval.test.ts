import { describe, expect, it } from 'vitest';
import { ScriptRefusedError } from '../../src/errors/script-errors.js';
import { checkApproval } from '../../src/scripts/approval.js';

const a = 'sha256:' + 'a'.repeat(64);
const b = 'sha256:' + 'b'.repeat(64);

describe('checkApproval', () => {
  it('lets the approved hash run while the record and its file still match it', () => {
    const approved = { status: 'approved' as const, hash: a, approved_hash: a };
    expect(checkApproval(approved)).toEqual({ runnable: true, hash: a });
    expect(checkApproval(approved, { fileHash: a })).toEqual({ runnable: true, hash: a });
    expect(checkApproval(approved, { fileHash: b })).toEqual({
      runnable: false,
      reason: 'modified',
    });
  });

  it('tells rejected, pending and modified apart', () => {
    expect(checkApproval({ status: 'rejected', hash: a, approved_hash: a })).toEqual({
      runnable: false,
      reason: 'rejected',
    });
    expect(checkApproval({ status: 'pending', hash: a })).toEqual({
      runnable: false,
      reason: 'pending',
    });
    // Pending again after an edit of an approved script: it says what happened.
    expect(checkApproval({ status: 'pending', hash: b, approved_hash: a })).toEqual({
      runnable: false,
      reason: 'modified',
    });
  });

  it('runs the current source of an allowlisted script whatever its status', () => {
    expect(
      checkApproval({ status: 'rejected', hash: b, approved_hash: a }, { allowUnapproved: true }),
    ).toEqual({ runnable: true, hash: b });
  });

  it('refuses with the catalogue error of each reason', () => {
    expect(new ScriptRefusedError('x.star', 'rejected').code).toBe('script_not_approved');
    expect(new ScriptRefusedError('x.star', 'pending').code).toBe('script_not_approved');
    expect(new ScriptRefusedError('x.star', 'modified').code).toBe('script_modified');
  });
});
