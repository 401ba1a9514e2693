import { describe, expect, it } from 'vitest';
import { hashSource } from '../../src/contracts/script-hashes.js';
import { createRecentChecks } from '../../src/scripts/recent-checks.js';
import { approvedRecord } from '../support/script-record.js';

const source = 'def main():\n    return 1\n';
const hash = hashSource(source);
const record = (name = 'a.star') => approvedRecord(name, source);

/** Recent checks on a clock the test moves. */
function clocked(maxAgeMs = 100) {
  const clock = { now: 1_000 };
  return { clock, recent: createRecentChecks(maxAgeMs, () => clock.now) };
}

describe('recent checks', () => {
  it('answers a check of the same hash younger than its bound, and nothing after it', () => {
    const { clock, recent } = clocked();
    recent.note('a.star', { record: record(), fileHash: hash });
    clock.now += 99;
    expect(recent.fresh('a.star', hash, true)).toMatchObject({ fileHash: hash });
    clock.now += 1;
    expect(recent.fresh('a.star', hash, true)).toBeUndefined();
    // Stale is gone for good: a later look does not bring it back.
    clock.now -= 50;
    expect(recent.fresh('a.star', hash, true)).toBeUndefined();
  });

  it('never answers for another hash, another name, or a file it did not read', () => {
    const { recent } = clocked();
    recent.note('a.star', { record: record(), fileHash: undefined });
    expect(recent.fresh('a.star', hashSource('x = 1\n'), false)).toBeUndefined();
    expect(recent.fresh('b.star', hash, false)).toBeUndefined();
    // Noted by an allowlisted run (the file was not looked at): no good for an approval check.
    expect(recent.fresh('a.star', hash, true)).toBeUndefined();
    expect(recent.fresh('a.star', hash, false)).toMatchObject({ fileHash: undefined });
  });

  it('forgets a name at once, and keeps the latest check of each name', () => {
    const { clock, recent } = clocked();
    recent.note('a.star', { record: record(), fileHash: null });
    recent.forget('a.star');
    expect(recent.fresh('a.star', hash, true)).toBeUndefined();
    recent.note('a.star', { record: record(), fileHash: null });
    clock.now += 60;
    recent.note('a.star', { record: record(), fileHash: hash });
    clock.now += 60;
    expect(recent.fresh('a.star', hash, true)).toMatchObject({ fileHash: hash });
  });

  it('holds a bounded number of names, dropping the longest unchecked first', () => {
    const { recent } = clocked();
    for (let i = 0; i < 1025; i++) recent.note(`s${i}.star`, { record: record(), fileHash: null });
    expect(recent.fresh('s0.star', hash, true)).toBeUndefined();
    expect(recent.fresh('s1.star', hash, true)).toBeDefined();
    expect(recent.fresh('s1024.star', hash, true)).toBeDefined();
  });
});
