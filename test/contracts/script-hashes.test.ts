import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  commitPattern,
  hashSource,
  newCommitId,
  scriptHashPattern,
} from '../../src/contracts/script-hashes.js';

describe('hashSource', () => {
  it('is sha256: and the hex digest of the UTF-8 bytes', () => {
    expect(hashSource('')).toBe(
      'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    const source = 'greeting = "héllo ✓"\n';
    expect(hashSource(source)).toBe(
      `sha256:${createHash('sha256').update(Buffer.from(source, 'utf8')).digest('hex')}`,
    );
    expect(hashSource(source)).toMatch(scriptHashPattern);
  });

  it('tells apart sources that differ only in whitespace or line endings', () => {
    expect(hashSource('x = 1\n')).not.toBe(hashSource('x = 1\r\n'));
    expect(hashSource('x = 1\n')).not.toBe(hashSource('x = 1'));
    expect(hashSource('é')).not.toBe(hashSource('e'));
  });
});

describe('scriptHashPattern', () => {
  it('accepts only sha256: with 64 lowercase hex digits', () => {
    expect(scriptHashPattern.test(`sha256:${'a'.repeat(64)}`)).toBe(true);
    expect(scriptHashPattern.test(`sha256:${'A'.repeat(64)}`)).toBe(false);
    expect(scriptHashPattern.test(`sha256:${'a'.repeat(63)}`)).toBe(false);
    expect(scriptHashPattern.test('a'.repeat(64))).toBe(false);
    expect(scriptHashPattern.test(`sha256:${'a'.repeat(64)}\n`)).toBe(false);
  });
});

describe('newCommitId', () => {
  it('is 40 lowercase hex characters, fresh each time', () => {
    const ids = new Set(Array.from({ length: 50 }, () => newCommitId()));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(commitPattern);
  });

  it('commitPattern refuses other lengths and upper case', () => {
    expect(commitPattern.test('0'.repeat(39))).toBe(false);
    expect(commitPattern.test('F'.repeat(40))).toBe(false);
  });
});
