import { describe, expect, it } from 'vitest';
import { AppError, errorCatalogue } from '../../src/errors/catalogue.js';

describe('AppError', () => {
  it('carries code, status, message and details', () => {
    const err = new AppError('invalid_script', 'bad', { line: 2, column: 3 });
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({
      name: 'AppError',
      code: 'invalid_script',
      status: errorCatalogue.invalid_script,
      message: 'bad',
      details: { line: 2, column: 3 },
    });
  });

  it('keeps the stack of server errors only, and leaves the stack limit as it was', () => {
    const before = Error.stackTraceLimit;
    expect(new AppError('internal_error', 'boom').stack).toContain('catalogue.test');
    expect(new AppError('script_not_found', 'gone').stack ?? '').not.toContain('catalogue.test');
    expect(Error.stackTraceLimit).toBe(before);
  });
});
