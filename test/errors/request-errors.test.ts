import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/catalogue.js';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ServiceUnavailableError,
  UnauthorizedError,
} from '../../src/errors/request-errors.js';

describe('request errors', () => {
  it.each([
    [BadRequestError, 'BadRequestError', 'invalid_request', 400],
    [UnauthorizedError, 'UnauthorizedError', 'unauthorized', 401],
    [ForbiddenError, 'ForbiddenError', 'forbidden', 403],
    [NotFoundError, 'NotFoundError', 'not_found', 404],
    [ConflictError, 'ConflictError', 'conflict', 409],
    [PayloadTooLargeError, 'PayloadTooLargeError', 'payload_too_large', 413],
    [RateLimitedError, 'RateLimitedError', 'rate_limited', 429],
    [ServiceUnavailableError, 'ServiceUnavailableError', 'service_unavailable', 503],
  ] as const)(
    '%o carries its name, code and status, and says the given message',
    (Class, name, code, status) => {
      const err = new Class('what exactly was wrong');
      expect(err).toBeInstanceOf(AppError);
      expect(err).toBeInstanceOf(Class);
      expect(err).toMatchObject({ name, code, status, message: 'what exactly was wrong' });
      expect(err.details).toBeUndefined();
    },
  );

  it('gives UnauthorizedError a default message', () => {
    expect(new UnauthorizedError().message).toBe('missing or invalid authentication');
    expect(new UnauthorizedError('token expired').message).toBe('token expired');
  });

  it('keeps the classes apart for instanceof', () => {
    expect(new NotFoundError('x')).not.toBeInstanceOf(ConflictError);
    expect(new ForbiddenError('x')).not.toBeInstanceOf(UnauthorizedError);
  });
});
