import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../src/scripts/diff.js';

describe('unifiedDiff', () => {
  it('answers the empty string for equal sources', () => {
    expect(unifiedDiff('a.star', 'x = 1\n', 'x = 1\n')).toBe('');
    expect(unifiedDiff('a.star', '', '')).toBe('');
  });

  it('answers hunks without file headers, each line newline-terminated', () => {
    const diff = unifiedDiff('a.star', 'x = 1\ny = 2\n', 'x = 1\ny = 3\n');
    expect(diff).toBe('@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n');
    expect(diff).not.toMatch(/^(---|\+\+\+)/m);
  });

  it('shows a removal and an addition in one hunk', () => {
    expect(unifiedDiff('a.star', 'a\nb\nc\n', 'a\nc\nd\n')).toBe(
      '@@ -1,3 +1,3 @@\n a\n-b\n c\n+d\n',
    );
  });

  it('keeps three lines of context and splits distant changes into separate hunks', () => {
    const from = Array.from({ length: 20 }, (_, i) => `l${i}`).join('\n') + '\n';
    const to = from.replace('l1\n', 'L1\n').replace('l18\n', 'L18\n');
    const diff = unifiedDiff('a.star', from, to);
    const headers = diff.split('\n').filter((line) => line.startsWith('@@'));
    expect(headers).toEqual(['@@ -1,5 +1,5 @@', '@@ -16,5 +16,5 @@']);
    expect(diff.endsWith('\n')).toBe(true);
  });

  it('shows a whole new script as additions', () => {
    expect(unifiedDiff('a.star', '', 'a = 1\nb = 2\n')).toMatch(
      /^@@ -\d+,0 \+1,2 @@\n\+a = 1\n\+b = 2\n$/,
    );
  });

  // A hunk of zero lines names the line before it (`-0,0` for an empty source, as GNU diff, git
  // and jsdiff's own formatPatch write); structuredPatch's raw start (`-1,0`) was printed, which
  // patch tools read as "insert after line 1".
  it('numbers an empty side 0,0 as the unified format does', () => {
    expect(unifiedDiff('a.star', '', 'a = 1\n')).toBe('@@ -0,0 +1,1 @@\n+a = 1\n');
    expect(unifiedDiff('a.star', 'a = 1\n', '')).toBe('@@ -1,1 +0,0 @@\n-a = 1\n');
  });

  it('marks a last line without a newline', () => {
    expect(unifiedDiff('a.star', 'x = 1', 'x = 2')).toContain('\\ No newline at end of file');
  });
});
