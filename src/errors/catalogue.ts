/**
 * Every error code an API answer can name, with its HTTP status (the spec's error table plus
 * the script and engine codes). Codes and statuses are part of the API: never change them.
 */
export const errorCatalogue = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
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

/**
 * Failures inside Steward that no API answer names. Over HTTP they are a 500 `internal_error`
 * whose details stay in the log; `to-mcp.ts` decides which of them the AI reads.
 */
export const internalErrorCodes = [
  'config_invalid',
  'allowlist_invalid',
  'secrets_key_invalid',
  'approval_key_invalid',
  'store_version_unsupported',
  'backup_refused',
  'secret_undecryptable',
  'queue_timeout',
  'worker_stopped',
  'delivery_failed',
  'chat_send_failed',
  'tool_failed',
] as const;

/** Why an outbound request was refused or failed (`EgressError.code`). */
export const egressErrorCodes = [
  'invalid_url',
  'scheme',
  'blocked',
  'dns',
  'timeout',
  'too_large',
  'too_many_redirects',
  'aborted',
  'network',
  'secret_destination',
] as const;

export type InternalErrorCode = (typeof internalErrorCodes)[number];
export type EgressErrorCode = (typeof egressErrorCodes)[number];
export type CatalogueCode = ErrorCode | InternalErrorCode | EgressErrorCode;

export type ErrorDetails = Record<string, unknown>;

export function isApiErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(errorCatalogue, code);
}

/** The HTTP status of a code: its API status, 500 for the internal ones. */
export function statusOf(code: CatalogueCode): number {
  return isApiErrorCode(code) ? errorCatalogue[code] : 500;
}

/**
 * The base of every error in the catalogue: a stable `code`, its HTTP `status` and structured
 * `details`. Callers tell errors apart by class or by `code`/`details`, never by message text.
 */
export class AppError<D extends ErrorDetails = ErrorDetails> extends Error {
  readonly status: number;
  readonly code: CatalogueCode;
  /** Structured facts about the failure (e.g. line/column of a syntax error). */
  readonly details: D | undefined;
  /** Whether `to-http.ts` renders `details` beside `error` and `message` in the body. */
  readonly detailsInBody: boolean;
  constructor(code: CatalogueCode, message: string, details?: D, detailsInBody = true) {
    // A 4xx answer is control flow (a refused script run, a missing id): its stack is never
    // logged, and capturing one costs tens of µs, which thousands of scheduled refusals notice.
    // (super stays a plain statement: transpilers move field initialisers right after it.)
    const status = statusOf(code);
    const limit = Error.stackTraceLimit;
    if (status < 500) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.detailsInBody = detailsInBody;
    this.status = status;
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

/**
 * Makes the class of one catalogue code, as fastify's `createError` does: `template` builds the
 * message from the constructor's arguments, so every throw of the class reads the same.
 */
export function createError<A extends unknown[]>(
  code: CatalogueCode,
  name: string,
  template: (...args: A) => string,
) {
  return class extends AppError {
    constructor(...args: A) {
      super(code, template(...args));
      this.name = name;
    }
  };
}
