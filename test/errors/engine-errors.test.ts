import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/catalogue.js';
import { EngineUnavailableError } from '../../src/errors/engine-errors.js';

describe('EngineUnavailableError', () => {
  it('is a 503 engine_unavailable whose message is the given text, never a 500', () => {
    const err = new EngineUnavailableError('engine did not answer within 5000 ms');
    expect(err).toBeInstanceOf(AppError);
    expect(err).toBeInstanceOf(EngineUnavailableError);
    expect(err).toMatchObject({
      name: 'EngineUnavailableError',
      code: 'engine_unavailable',
      status: 503,
      message: 'engine did not answer within 5000 ms',
    });
    expect(err.details).toBeUndefined();
  });
});
