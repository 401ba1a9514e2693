import { describe, expect, it } from 'vitest';
import { AppError, errorCatalogue } from '../../src/errors/catalogue.js';
import { ScriptRefusedError } from '../../src/errors/script-errors.js';
import { SecretsKeyError } from '../../src/errors/secrets-errors.js';

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

  it('gives every class of the catalogue its code, status, name and details', () => {
    const refused = new ScriptRefusedError('a.star', 'rejected');
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({
      name: 'ScriptRefusedError',
      code: 'script_not_approved',
      status: 403,
      details: { script: 'a.star', reason: 'rejected' },
    });
    expect(refused.stack ?? '').not.toContain('catalogue.test');
    const key = new SecretsKeyError('wrong key');
    expect(key).toMatchObject({
      name: 'SecretsKeyError',
      code: 'secrets_key_invalid',
      status: 500,
    });
    expect(key.stack).toContain('catalogue.test');
  });
});
