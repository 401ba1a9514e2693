import { describe, expect, it } from 'vitest';
import {
  isSecretName,
  MAX_SECRET_VALUE_BYTES,
  secretNameSchema,
  secretValueSchema,
  shortValueWarning,
} from '../../src/secrets/names.js';

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

describe('secret values', () => {
  const problem = (value: unknown) => secretValueSchema.safeParse(value).error?.issues[0]?.message;

  it('takes any non-empty string up to the byte limit', () => {
    expect(problem('x')).toBeUndefined();
    expect(problem('x'.repeat(MAX_SECRET_VALUE_BYTES))).toBeUndefined();
    expect(MAX_SECRET_VALUE_BYTES).toBe(65_536);
  });

  it('counts the limit in UTF-8 bytes, not characters', () => {
    expect(problem('é'.repeat(MAX_SECRET_VALUE_BYTES / 2))).toBeUndefined();
    expect(problem('é'.repeat(MAX_SECRET_VALUE_BYTES / 2 + 1))).toBe(
      'value must be at most 65536 bytes',
    );
    expect(problem('x'.repeat(MAX_SECRET_VALUE_BYTES + 1))).toBe(
      'value must be at most 65536 bytes',
    );
  });

  it('refuses empty and non-string values', () => {
    expect(problem('')).toBe('value must not be empty');
    expect(problem(42)).toBe('value must be a string');
    expect(problem(undefined)).toBe('value must be a string');
  });

  it('never quotes the value in an error', () => {
    const value = `hunter2-${'z'.repeat(MAX_SECRET_VALUE_BYTES)}`;
    const result = secretValueSchema.safeParse(value);
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).not.toContain('hunter2');
    const typed = secretValueSchema.safeParse(123456789);
    expect(JSON.stringify(typed.error?.issues)).not.toContain('123456789');
  });
});

describe('shortValueWarning', () => {
  it('warns below 8 characters, where redaction would hit ordinary text', () => {
    expect(shortValueWarning('1234567')).toBe(
      'value is shorter than 8 characters: too short to redact reliably',
    );
    expect(shortValueWarning('12345678')).toBeUndefined();
  });
});
