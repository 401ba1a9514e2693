/**
 * Every error code the API can answer, with its HTTP status. Routes throw `AppError`s built
 * from this table; the one error handler renders `{error, message}` from them.
 */
export const errorCatalogue = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  password_invalid: 400,
  password_mismatch: 400,
  setup_completed: 403,
  invalid_credentials: 401,
  no_refresh_token: 401,
  invalid_refresh_token: 401,
  script_not_found: 404,
  script_not_approved: 403,
  script_modified: 409,
  invalid_script: 400,
  engine_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorCatalogue;

export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  /** Extra fields rendered beside `error` and `message` (e.g. line/column of a syntax error). */
  readonly details: Record<string, unknown> | undefined;
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    // A 4xx answer is control flow (a refused script run, a missing id): its stack is never
    // logged, and capturing one costs tens of µs, which thousands of scheduled refusals notice.
    // (super stays a plain statement: transpilers move field initialisers right after it.)
    const limit = Error.stackTraceLimit;
    if (errorCatalogue[code] < 500) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.status = errorCatalogue[code];
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) =>
  new AppError('invalid_request', message, details);
export const notFound = (message: string) => new AppError('not_found', message);
export const conflict = (message: string) => new AppError('conflict', message);
export const unauthorized = (message = 'missing or invalid authentication') =>
  new AppError('unauthorized', message);
export const unavailable = (message: string) => new AppError('service_unavailable', message);

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
