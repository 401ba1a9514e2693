import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/catalogue.js';
import { DeliveryError } from '../../src/errors/delivery-error.js';

describe('DeliveryError', () => {
  it('is an internal delivery_failed error that says whether it is permanent', () => {
    const err = new DeliveryError('unknown channel "pager"', true);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toBeInstanceOf(DeliveryError);
    expect(err).toMatchObject({
      name: 'DeliveryError',
      code: 'delivery_failed',
      status: 500,
      message: 'unknown channel "pager"',
      permanent: true,
      details: { permanent: true },
    });
  });

  it('marks a transient failure as not permanent, in the field and in details alike', () => {
    const err = new DeliveryError('provider answered 502', false);
    expect(err.permanent).toBe(false);
    expect(err.details).toEqual({ permanent: false, unknown: false });
  });
});
