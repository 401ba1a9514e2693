import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors/catalogue.js';
import type { VersionRecord } from '../../src/contracts/script-record.js';
import { approved, created, modified, rejected } from '../../src/scripts/script-transitions.js';

const v = (n: number): VersionRecord => ({
  commit: String(n).repeat(40).slice(0, 40),
  message: 'm',
  author: 'a',
  timestamp: `2025-01-0${n}T00:00:00.000Z`,
  source: `result = ${n}\n`,
  hash: `hash-${n}`,
});

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return isAppError(err) ? err.code : 'other';
  }
  return null;
};

describe('script review transitions', () => {
  it('a new script is pending at its first version', () => {
    const record = created('a.star', v(1));
    expect(record).toMatchObject({ status: 'pending', hash: 'hash-1', head: v(1).commit });
    expect(record.created_at).toBe(record.modified_at);
  });

  it('approving records who and which hash; approving again keeps the first approval', () => {
    const first = approved(created('a.star', v(1)), 'alice', 't1');
    expect(first).toMatchObject({
      status: 'approved',
      approved_by: 'alice',
      approved_hash: 'hash-1',
    });
    expect(approved(first, 'bob', 't2')).toBe(first);
  });

  it('refuses to approve a hash other than the current one', () => {
    expect(code(() => approved(created('a.star', v(1)), 'alice', 't', 'hash-0'))).toBe(
      'script_modified',
    );
  });

  it('a modification is pending again but keeps the approved hash', () => {
    const next = modified(approved(created('a.star', v(1)), 'alice', 't1'), v(2));
    expect(next).toMatchObject({ status: 'pending', hash: 'hash-2', approved_hash: 'hash-1' });
    expect(next.approved_by).toBeUndefined();
    expect(next.approved_at).toBeUndefined();
  });

  it('rejecting clears the approval and refuses a second rejection', () => {
    const once = rejected(approved(created('a.star', v(1)), 'alice', 't1'), 'bob', 't2', 'no');
    expect(once).toMatchObject({ status: 'rejected', rejected_by: 'bob', reason: 'no' });
    expect(once.approved_hash).toBeUndefined();
    expect(code(() => rejected(once, 'bob', 't3', 'still no'))).toBe('conflict');
    // Approving a rejected script clears the rejection.
    const back = approved(once, 'alice', 't4');
    expect(back.status).toBe('approved');
    expect(back.reason).toBeUndefined();
  });
});
