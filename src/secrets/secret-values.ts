import { z } from 'zod';

/** DESIGN.md "Decisions": secret value size, counted in UTF-8 bytes. */
export const MAX_SECRET_VALUE_BYTES = 64 * 1024;
/** Below this many characters a value matches too much ordinary text to redact reliably. */
export const MIN_RELIABLE_VALUE_LENGTH = 8;

// The messages never quote the value: zod would otherwise echo it into an error body or a log.
export const secretValueSchema = z
  .string({ error: 'value must be a string' })
  .min(1, 'value must not be empty')
  .refine((v) => Buffer.byteLength(v, 'utf8') <= MAX_SECRET_VALUE_BYTES, {
    message: `value must be at most ${MAX_SECRET_VALUE_BYTES} bytes`,
  });

export function shortValueWarning(value: string): string | undefined {
  return value.length < MIN_RELIABLE_VALUE_LENGTH
    ? `value is shorter than ${MIN_RELIABLE_VALUE_LENGTH} characters: too short to redact reliably`
    : undefined;
}
