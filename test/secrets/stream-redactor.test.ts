import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/secrets/redactor.js';
import { createStreamRedactor } from '../../src/secrets/stream-redactor.js';

const redactor = createRedactor([
  { name: 'TOKEN', value: 'tok-1234567890' },
  { name: 'PASS', value: 'correct-horse' },
]);

/** Feeds `chunks` and returns what was released after each push, then the end. */
function feed(chunks: string[]) {
  const stream = createStreamRedactor(redactor);
  const released = chunks.map((chunk) => stream.push(chunk));
  return { released, rest: stream.end() };
}

describe('createStreamRedactor', () => {
  it('gives the same text as redact() for every way of cutting it in three', () => {
    const text = 'a tok-1234567890 b correct-horsetok-1234567890 c dG9rLTEyMzQ1Njc4OTA= d';
    const expected = redactor.redact(text);
    expect(expected).toBe('a [REDACTED:TOKEN] b [REDACTED:PASS] c [REDACTED:TOKEN] d');
    for (let i = 0; i <= text.length; i += 3) {
      for (let j = i; j <= text.length; j += 5) {
        const { released, rest } = feed([text.slice(0, i), text.slice(i, j), text.slice(j)]);
        expect(released.join('') + rest, `${i}/${j}`).toBe(expected);
      }
    }
  });

  it('never releases part of a secret', () => {
    const text = 'xx correct-horse yy';
    for (let cut = 1; cut < text.length; cut++) {
      const { released } = feed([text.slice(0, cut)]);
      const out = released[0] ?? '';
      expect(out, String(cut)).not.toContain('correct');
      expect('xx [REDACTED:PASS] yy'.startsWith(out), `${cut}: ${out}`).toBe(true);
    }
  });

  it('releases at end() a held-back tail that never became a secret', () => {
    const { released, rest } = feed(['value tok-12345']);
    expect(released).toEqual(['value ']);
    expect(rest).toBe('tok-12345');
  });

  it('redacts at end() a secret that closes the stream', () => {
    const { released, rest } = feed(['see ', 'correct-horse']);
    expect(released.join('') + rest).toBe('see [REDACTED:PASS]');
  });

  it('holds a found secret while a neighbour could still merge with it', () => {
    const stream = createStreamRedactor(redactor);
    const first = stream.push('<correct-horse');
    expect(first).toBe('<');
    const second = stream.push('tok-1234567890>');
    expect(first + second + stream.end()).toBe('<[REDACTED:PASS]>');
  });

  it('returns nothing for empty chunks and can be reused after end()', () => {
    const stream = createStreamRedactor(redactor);
    expect(stream.push('')).toBe('');
    expect(stream.push('half correct-')).toBe('half ');
    expect(stream.end()).toBe('correct-');
    // A fresh start: the earlier half must not complete a match with the new text.
    expect(stream.push('horse ') + stream.end()).toBe('horse ');
    expect(stream.push('correct-horse!') + stream.end()).toBe('[REDACTED:PASS]!');
  });

  it('catches a multi-line secret split at its line break', () => {
    const pem = createRedactor([{ name: 'KEY', value: 'line-one-abc\nline-two-def' }]);
    const stream = createStreamRedactor(pem);
    const out = stream.push('k=line-one-abc\n') + stream.push('line-two-def;') + stream.end();
    expect(out).toBe('k=[REDACTED:KEY];');
  });
});
