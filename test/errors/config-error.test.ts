import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/catalogue.js';
import { ConfigError } from '../../src/errors/config-error.js';

describe('ConfigError', () => {
  it('is an internal config_invalid error (500) whose message is the given text', () => {
    const err = new ConfigError('redis.url: required');
    expect(err).toBeInstanceOf(AppError);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toMatchObject({
      name: 'ConfigError',
      code: 'config_invalid',
      status: 500,
      message: 'redis.url: required',
    });
    expect(err.details).toBeUndefined();
  });

  it('keeps its stack: start-up failures are logged in full', () => {
    expect(new ConfigError('x').stack).toContain('config-error.test');
  });
});
