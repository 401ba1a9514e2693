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
