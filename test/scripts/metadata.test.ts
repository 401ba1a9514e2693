import { describe, expect, it } from 'vitest';
import { commitPattern, hashSource, newCommitId } from '../../src/scripts/hashing.js';
import { parseMetadata } from '../../src/scripts/metadata.js';
import { unifiedDiff } from '../../src/scripts/diff.js';

describe('script metadata header', () => {
  it('reads description, author, version and secrets from the leading comments', () => {
    const meta = parseMetadata(
      '#!starlark\r\n# @description:  Weather report \r\n# @Author: Bob\n\n# @version: 2.1\n# @secrets: A_KEY, B_KEY  C_KEY,A_KEY\nx = 1\n',
    );
    expect(meta).toEqual({
      description: 'Weather report',
      author: 'Bob',
      version: '2.1',
      secrets: ['A_KEY', 'B_KEY', 'C_KEY'],
    });
  });

  it('ignores headers after the first line of code', () => {
    expect(parseMetadata('x = 1\n# @secrets: LATE\n')).toEqual({
      description: '',
      author: '',
      version: '',
      secrets: [],
    });
  });
});

describe('hashes, commits and diffs', () => {
  it('hashes the UTF-8 bytes with a sha256: prefix', () => {
    expect(hashSource('')).toBe(
      'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(hashSource('é')).not.toBe(hashSource('e'));
  });

  it('makes 40-hex commit ids', () => {
    const ids = new Set(Array.from({ length: 100 }, newCommitId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(commitPattern);
  });

  it('formats unified hunks', () => {
    expect(unifiedDiff('a.star', 'a\nb\n', 'a\nb\n')).toBe('');
    expect(unifiedDiff('a.star', 'a\nb\nc\n', 'a\nc\nd\n')).toBe(
      '@@ -1,3 +1,3 @@\n a\n-b\n c\n+d\n',
    );
  });
});
