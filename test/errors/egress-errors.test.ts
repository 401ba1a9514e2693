import { describe, expect, it } from 'vitest';
import { AppError, egressErrorCodes } from '../../src/errors/catalogue.js';
import { AllowlistError, EgressError } from '../../src/errors/egress-errors.js';

describe('EgressError', () => {
  it.each(egressErrorCodes)(
    'carries the egress code %s as a 500 with the given message',
    (code) => {
      const err = new EgressError(code, `refused: ${code}`);
      expect(err).toBeInstanceOf(AppError);
      expect(err).toBeInstanceOf(EgressError);
      expect(err).toMatchObject({
        name: 'EgressError',
        code,
        status: 500,
        message: `refused: ${code}`,
      });
      expect(err.details).toBeUndefined();
    },
  );
});

describe('AllowlistError', () => {
  it('is an internal allowlist_invalid error, not an EgressError', () => {
    const err = new AllowlistError('egress.allow[0]: "*.": empty label');
    expect(err).toBeInstanceOf(AppError);
    expect(err).not.toBeInstanceOf(EgressError);
    expect(err).toMatchObject({
      name: 'AllowlistError',
      code: 'allowlist_invalid',
      status: 500,
      message: 'egress.allow[0]: "*.": empty label',
    });
    expect(err.details).toBeUndefined();
  });
});
