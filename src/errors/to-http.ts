import { ZodError } from 'zod';
import { isApiErrorCode, isAppError } from './catalogue.js';

/** The spec's administration error body. */
export interface ErrorBody {
  error: string;
  message: string;
  [field: string]: unknown;
}

export interface HttpAnswer {
  status: number;
  body: ErrorBody;
}

/** Fastify's own error codes, rendered in the spec's `{error, message}` form. */
const fastifyCodes: Record<string, { error: string; message?: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: {
    error: 'invalid_request',
    message: 'request body is not valid JSON',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    error: 'invalid_request',
    message: 'request body is empty but content-type is application/json',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    error: 'payload_too_large',
    message: 'request body is larger than the limit',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    error: 'unsupported_media_type',
    message: 'unsupported content type; send application/json',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    error: 'invalid_request',
    message: 'content-length does not match the body',
  },
};

export function describeZodIssues(error: ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'body'}: ${issue.message}`)
    .join('; ');
}

interface FrameworkError {
  code?: unknown;
  statusCode?: unknown;
  message?: unknown;
}

/**
 * The one mapping of errors to HTTP answers: catalogue errors with an API code as
 * `{error: code, message, ...details}`, zod failures and Fastify's client errors as the matching
 * 4xx. Anything else (an internal catalogue error, a crash) gives undefined: the caller logs it
 * and answers `internalErrorAnswer`, so no internals reach the client.
 */
export function toHttp(err: unknown): HttpAnswer | undefined {
  if (isAppError(err)) {
    if (!isApiErrorCode(err.code)) return undefined;
    const extra = err.detailsInBody ? err.details : undefined;
    return { status: err.status, body: { error: err.code, message: err.message, ...extra } };
  }
  if (err instanceof ZodError) {
    return { status: 400, body: { error: 'invalid_request', message: describeZodIssues(err) } };
  }
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, statusCode, message } = err as FrameworkError;
  const text = typeof message === 'string' ? message : '';
  const status = typeof statusCode === 'number' ? statusCode : undefined;
  const known = typeof code === 'string' ? fastifyCodes[code] : undefined;
  if (known) {
    return { status: status ?? 400, body: { error: known.error, message: known.message ?? text } };
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return { status, body: { error: 'invalid_request', message: text } };
  }
  return undefined;
}

/** A server error: never show its internals; the log has them, keyed by request id. */
export function internalErrorAnswer(requestId: string): HttpAnswer {
  return {
    status: 500,
    body: { error: 'internal_error', message: `internal error (request ${requestId})` },
  };
}
