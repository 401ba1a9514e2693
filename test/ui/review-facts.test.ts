import { describe, expect, it } from 'vitest';
import type { ScriptListEntry } from '../../ui/src/api/types.js';
import { nextPending, proposerLabel, whileUndecided } from '../../ui/src/review-facts.js';

/** What the review says around its diff: who proposed, what runs meanwhile, what comes next. */
describe('the facts above a review', () => {
  it('names who proposed a version by its history author', () => {
    expect(proposerLabel('mcp')).toBe('the AI, through the tool server');
    expect(proposerLabel('filesystem')).toBe('a file on disk (imported by Steward)');
    expect(proposerLabel('admin')).toBe('the administrator admin');
  });

  it('says what runs until the decision', () => {
    expect(whileUndecided({ status: 'pending', approved_commit: 'abcdef0123' }).text).toMatch(
      /approved version abcdef01 keeps running/,
    );
    expect(whileUndecided({ status: 'pending' }).text).toMatch(/nothing of this script runs/);
    expect(whileUndecided({ status: 'rejected' }).tone).toBe('red');
  });

  it('takes the oldest pending change next, never the one just reviewed', () => {
    const s = (name: string, status: string, modified_at: string) =>
      ({ name, status, modified_at }) as ScriptListEntry;
    const list = [
      s('c.star', 'pending', '2026-01-03T00:00:00Z'),
      s('a.star', 'approved', '2026-01-01T00:00:00Z'),
      s('b.star', 'pending', '2026-01-02T00:00:00Z'),
    ];
    expect(nextPending(list, 'x.star')).toBe('b.star');
    expect(nextPending(list, 'b.star')).toBe('c.star');
    expect(nextPending([list[0]!], 'c.star')).toBeNull();
  });
});
