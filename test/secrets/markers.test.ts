import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/catalogue.js';
import { assertNoMarkers, containsMarker } from '../../src/secrets/markers.js';
import { createRedactor } from '../../src/secrets/redactor.js';

describe('redaction markers', () => {
  it('refuses content holding a marker the redactor writes', () => {
    const out = createRedactor([{ name: 'API_KEY', value: 'abcdef-123456' }]).redact(
      'key=abcdef-123456',
    );
    expect(containsMarker(out)).toBe(true);
    expect(() => assertNoMarkers(out)).toThrow(AppError);
    expect(() => assertNoMarkers(`config:\n  key: [REDACTED:API_KEY]\n`, 'file')).toThrow(
      /file contains/,
    );
  });

  it('accepts ordinary content', () => {
    expect(() =>
      assertNoMarkers('plain text [REDACTED] and [REDACTED:] and REDACTED:X'),
    ).not.toThrow();
    expect(containsMarker('')).toBe(false);
  });
});

describe('redaction markers, edge cases', () => {
  it('knows every marker the redactor can write, names of 1 to 128 characters', () => {
    for (const name of ['A', '_', 'k9', `x${'y'.repeat(127)}`]) {
      const out = createRedactor([{ name, value: 'value-to-hide-123' }]).redact(
        'a value-to-hide-123 b',
      );
      expect(containsMarker(out), name).toBe(true);
    }
  });

  it('ignores bracketed text that is not a secret name', () => {
    for (const text of [
      '[REDACTED:9LIVES]',
      '[REDACTED:has space]',
      '[REDACTED:dash-name]',
      '[redacted:KEY]',
      `[REDACTED:x${'y'.repeat(128)}]`,
      '[REDACTED:KEY',
    ]) {
      expect(containsMarker(text), text).toBe(false);
    }
  });

  it('finds a marker anywhere in a long text', () => {
    expect(containsMarker(`${'x'.repeat(100_000)}[REDACTED:TOKEN]${'y'.repeat(10)}`)).toBe(true);
  });
});
