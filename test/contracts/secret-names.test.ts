import { describe, expect, it } from 'vitest';
import {
  isSecretName,
  SECRET_NAME_PATTERN,
  secretNameSchema,
} from '../../src/contracts/secret-names.js';
import { MARKER_PATTERN } from '../../src/secrets/markers.js';

describe('secret names', () => {
  it('accepts a letter or _ followed by up to 127 letters, digits or _', () => {
    for (const name of ['A', '_', 'api_key', 'GITHUB_TOKEN_2', `A${'b'.repeat(127)}`]) {
      expect(isSecretName(name), name).toBe(true);
      expect(secretNameSchema.safeParse(name).success, name).toBe(true);
    }
  });

  it('refuses everything else, including names that would break a key or a marker', () => {
    for (const name of [
      '',
      '1KEY',
      'API-KEY',
      'API KEY',
      'api.key',
      'key:1',
      'KEY]',
      'clé',
      `A${'b'.repeat(128)}`,
      'A\n',
    ]) {
      expect(isSecretName(name), JSON.stringify(name)).toBe(false);
      expect(secretNameSchema.safeParse(name).success, JSON.stringify(name)).toBe(false);
    }
  });
});

describe('the secret-name pattern', () => {
  it('is the one the config, the script header and the redaction marker take', () => {
    expect(SECRET_NAME_PATTERN.source).toBe('^[A-Za-z_][A-Za-z0-9_]{0,127}$');
    expect(MARKER_PATTERN.test(`[REDACTED:A${'b'.repeat(127)}]`)).toBe(true);
    expect(MARKER_PATTERN.test(`[REDACTED:A${'b'.repeat(128)}]`)).toBe(false);
    expect(MARKER_PATTERN.test('[REDACTED:1KEY]')).toBe(false);
  });
});
