import { isAppError, type AppError } from '../errors/catalogue.js';
import { EngineUnavailableError } from '../errors/engine-errors.js';
import { BadRequestError, NotFoundError } from '../errors/request-errors.js';

/** Status and body the SDK keeps on `error.cause` when the engine answered with an error. */
interface EngineErrorCause {
  status?: number;
  body?: unknown;
}

/**
 * Turns whatever a call to the engine threw into an AppError. A down, slow or failing engine
 * is always 503 `engine_unavailable`, never 500: the API itself is healthy.
 */
export function toAppError(err: unknown, notFoundMessage = 'session not found'): AppError {
  if (isAppError(err)) return err;
  const cause = (err as { cause?: EngineErrorCause } | undefined)?.cause;
  const status = typeof cause?.status === 'number' ? cause.status : undefined;
  const message = err instanceof Error ? err.message : String(err);
  if (status === undefined)
    return new EngineUnavailableError(`AI engine is not reachable: ${reason(err)}`);
  if (status === 404) return new NotFoundError(notFoundMessage);
  if (status === 400) return new BadRequestError(`AI engine rejected the request: ${message}`);
  if (status === 401 || status === 403) {
    return new EngineUnavailableError('AI engine is not reachable: it refused the credentials');
  }
  return new EngineUnavailableError(`AI engine failed: ${message}`);
}

function reason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return 'request timed out';
  // fetch reports "fetch failed" and keeps the useful part (ECONNREFUSED …) on its cause.
  const inner = (err as { cause?: unknown }).cause;
  const code = (inner as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  if (inner instanceof Error && inner.message) return inner.message;
  return err.message;
}
