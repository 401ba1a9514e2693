import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/catalogue.js';
import { SecretDecryptError, SecretsKeyError } from '../../src/errors/secrets-errors.js';

describe('secrets errors', () => {
  it('SecretsKeyError is an internal secrets_key_invalid error with the given message', () => {
    const err = new SecretsKeyError('the secrets key is not the one the values were stored with');
    expect(err).toBeInstanceOf(AppError);
    expect(err).toBeInstanceOf(SecretsKeyError);
    expect(err).not.toBeInstanceOf(SecretDecryptError);
    expect(err).toMatchObject({
      name: 'SecretsKeyError',
      code: 'secrets_key_invalid',
      status: 500,
      message: 'the secrets key is not the one the values were stored with',
    });
    expect(err.details).toBeUndefined();
  });

  it('SecretDecryptError is an internal secret_undecryptable error with the given message', () => {
    const err = new SecretDecryptError('secret GITHUB_TOKEN does not authenticate');
    expect(err).toBeInstanceOf(AppError);
    expect(err).not.toBeInstanceOf(SecretsKeyError);
    expect(err).toMatchObject({
      name: 'SecretDecryptError',
      code: 'secret_undecryptable',
      status: 500,
      message: 'secret GITHUB_TOKEN does not authenticate',
    });
    expect(err.details).toBeUndefined();
  });
});
