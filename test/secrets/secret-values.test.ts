import { describe, expect, it } from 'vitest';
import {
  MAX_SECRET_VALUE_BYTES,
  secretValueSchema,
  shortValueWarning,
} from '../../src/secrets/secret-values.js';

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
