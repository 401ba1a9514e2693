import { createError } from './catalogue.js';

/** The generic API errors: the message says what exactly was wrong. */
const says = (message: string) => message;

export const BadRequestError = createError('invalid_request', 'BadRequestError', says);
export type BadRequestError = InstanceType<typeof BadRequestError>;

export const UnauthorizedError = createError(
  'unauthorized',
  'UnauthorizedError',
  (message: string = 'missing or invalid authentication') => message,
);
export type UnauthorizedError = InstanceType<typeof UnauthorizedError>;

export const ForbiddenError = createError('forbidden', 'ForbiddenError', says);
export type ForbiddenError = InstanceType<typeof ForbiddenError>;

export const NotFoundError = createError('not_found', 'NotFoundError', says);
export type NotFoundError = InstanceType<typeof NotFoundError>;

export const ConflictError = createError('conflict', 'ConflictError', says);
export type ConflictError = InstanceType<typeof ConflictError>;

export const PayloadTooLargeError = createError('payload_too_large', 'PayloadTooLargeError', says);
export type PayloadTooLargeError = InstanceType<typeof PayloadTooLargeError>;

export const RateLimitedError = createError('rate_limited', 'RateLimitedError', says);
export type RateLimitedError = InstanceType<typeof RateLimitedError>;

export const ServiceUnavailableError = createError(
  'service_unavailable',
  'ServiceUnavailableError',
  says,
);
export type ServiceUnavailableError = InstanceType<typeof ServiceUnavailableError>;
