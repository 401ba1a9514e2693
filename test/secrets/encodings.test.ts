import { describe, expect, it } from 'vitest';
import { MIN_DERIVED_LENGTH, patternsFor } from '../../src/secrets/encodings.js';

/** Does some pattern of `value` occur in `text`, covering at least `min` characters of it? */
const found = (value: string, text: string, min = 1) =>
  patternsFor(value).some((p) => p.length >= min && text.includes(p));

describe('patternsFor', () => {
  it('puts the value itself first and lists nothing twice', () => {
    const patterns = patternsFor('correct horse');
    expect(patterns[0]).toBe('correct horse');
    expect(new Set(patterns).size).toBe(patterns.length);
  });

  it('keeps a short value but no derived text shorter than the minimum', () => {
    const patterns = patternsFor('ab\nc');
    expect(patterns[0]).toBe('ab\nc');
    for (const p of patterns.slice(1))
      expect(p.length, p).toBeGreaterThanOrEqual(MIN_DERIVED_LENGTH);
    expect(patterns).not.toContain('ab');
    expect(patternsFor('x')).toContain('x');
  });

  it('adds each line of a multi-line value, whatever the line ending', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const patterns = patternsFor(`first-line${eol}second-line${eol}third-line`);
      for (const line of ['first-line', 'second-line', 'third-line']) {
        expect(patterns, JSON.stringify(eol)).toContain(line);
      }
    }
  });

  it('does not split a one-line value into words', () => {
    expect(patternsFor('alpha beta gamma')).not.toContain('alpha');
  });

  it('finds base64 of the value at any alignment inside a longer byte string', () => {
    const values = ['s3cr3t-Value_with?/+=', 'pässwörd-€-日本', 'abcd', 'abcde', 'abcdef'];
    for (const value of values) {
      for (const before of ['', 'x', 'xy', 'xyz', 'Authorization: Basic ']) {
        for (const after of ['', '!', '!?', '!?#']) {
          const bytes = Buffer.from(`${before}${value}${after}`);
          for (const encoded of [
            bytes.toString('base64'),
            bytes.toString('base64').replace(/=+$/, ''),
            bytes.toString('base64url'),
          ]) {
            // Only the one or two boundary characters mixed with unknown bits may be missed.
            const stable = Math.floor((Buffer.byteLength(value) * 8) / 6) - 2;
            expect(found(value, encoded, stable), `${before}|${value}|${after} → ${encoded}`).toBe(
              true,
            );
          }
        }
      }
    }
  });

  it('covers the whole base64 text, padding included, when the value ends the data', () => {
    const value = 'token-1234567';
    for (const before of ['', 'a', 'ab']) {
      const encoded = Buffer.from(before + value).toString('base64');
      const tail = encoded.slice(Math.ceil((before.length * 8) / 6));
      expect(patternsFor(value), before).toContain(tail);
    }
  });

  it('lists the percent-encodings a URL or a form would carry', () => {
    const value = 'a b&c=d/é+';
    const patterns = patternsFor(value);
    expect(patterns).toContain(encodeURIComponent(value));
    expect(patterns).toContain(new URLSearchParams({ q: value }).toString().slice(2)); // + for space
    const hex = Buffer.from(value).toString('hex');
    expect(patterns).toContain(hex.replace(/../g, '%$&'));
    expect(patterns).toContain(hex.toUpperCase().replace(/../g, '%$&'));
  });

  it('lists hex in both cases', () => {
    const patterns = patternsFor('key!');
    expect(patterns).toContain('6b657921');
    expect(patterns).toContain('6B657921');
  });

  it('lists the JSON string forms, with non-ASCII raw or escaped in either case', () => {
    const value = 'say "hi"\\\t€😀';
    const patterns = patternsFor(value);
    expect(patterns).toContain(JSON.stringify(value).slice(1, -1));
    // What Python's json.dumps (ensure_ascii) prints: astral characters as surrogate pairs.
    expect(patterns).toContain('say \\"hi\\"\\\\\\t\\u20ac\\ud83d\\ude00');
    expect(patterns).toContain('say \\"hi\\"\\\\\\t\\u20AC\\uD83D\\uDE00');
  });
});
