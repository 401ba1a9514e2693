import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/catalogue.js';
import { EngineUnavailableError } from '../../src/errors/engine-errors.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../src/errors/request-errors.js';
import { toAppError } from '../../src/engine/errors.js';

/** An error as the SDK throws it when the engine answered `status`. */
function answered(status: number, message = 'engine said no') {
  return new Error(message, { cause: { status, body: { message } } });
}

function named(name: string, message = 'x') {
  const err = new Error(message);
  err.name = name;
  return err;
}

describe('toAppError', () => {
  it('passes catalogue errors through untouched', () => {
    const err = new ConflictError('busy');
    expect(toAppError(err)).toBe(err);
  });

  it('maps a failure without an engine answer to 503, naming the network cause', () => {
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4096'), {
        code: 'ECONNREFUSED',
      }),
    });
    const err = toAppError(refused);
    expect(err).toBeInstanceOf(EngineUnavailableError);
    expect(err).toMatchObject({
      code: 'engine_unavailable',
      status: 503,
      message: 'AI engine is not reachable: ECONNREFUSED',
    });
  });

  it('says "request timed out" for timeouts and aborts', () => {
    for (const name of ['TimeoutError', 'AbortError']) {
      expect(toAppError(named(name, 'The operation was aborted')).message).toBe(
        'AI engine is not reachable: request timed out',
      );
    }
  });

  it('falls back to the inner message, then the outer one, then the text of a non-error', () => {
    expect(
      toAppError(new Error('fetch failed', { cause: new Error('socket hang up') })).message,
    ).toBe('AI engine is not reachable: socket hang up');
    expect(toAppError(new Error('something odd')).message).toBe(
      'AI engine is not reachable: something odd',
    );
    expect(toAppError('plain text').message).toBe('AI engine is not reachable: plain text');
    expect(toAppError(undefined)).toMatchObject({
      code: 'engine_unavailable',
      message: 'AI engine is not reachable: undefined',
    });
  });

  it('maps an engine 404 to not_found with the caller’s message', () => {
    expect(toAppError(answered(404))).toMatchObject({
      code: 'not_found',
      status: 404,
      message: 'session not found',
    });
    const err = toAppError(answered(404), 'providers not found');
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toBe('providers not found');
  });

  it('maps an engine 400 to invalid_request carrying the engine’s words', () => {
    const err = toAppError(answered(400, 'model is required'));
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toMatchObject({
      status: 400,
      message: 'AI engine rejected the request: model is required',
    });
  });

  it('maps refused credentials to 503, without the engine’s text', () => {
    for (const status of [401, 403]) {
      expect(toAppError(answered(status, 'bad password hunter2'))).toMatchObject({
        code: 'engine_unavailable',
        status: 503,
        message: 'AI engine is not reachable: it refused the credentials',
      });
    }
  });

  it('maps every other engine answer to 503, never 500', () => {
    for (const status of [409, 429, 500, 502]) {
      const err = toAppError(answered(status, 'database is locked'));
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({
        code: 'engine_unavailable',
        status: 503,
        message: 'AI engine failed: database is locked',
      });
    }
  });

  it('ignores a cause whose status is not a number', () => {
    const err = new Error('odd', { cause: { status: '404' } });
    expect(toAppError(err)).toMatchObject({ code: 'engine_unavailable' });
  });
});
