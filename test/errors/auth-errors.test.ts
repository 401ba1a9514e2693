import { describe, expect, it } from 'vitest';
import {
  InvalidCredentialsError,
  InvalidRefreshTokenError,
  NoRefreshTokenError,
  PasswordInvalidError,
  PasswordMismatchError,
  SetupCompletedError,
} from '../../src/errors/auth-errors.js';
import { AppError } from '../../src/errors/catalogue.js';

describe('auth errors', () => {
  it.each([
    [
      new PasswordInvalidError('password must be at least 12 characters'),
      'PasswordInvalidError',
      'password_invalid',
      400,
      'password must be at least 12 characters',
    ],
    [
      new PasswordMismatchError(),
      'PasswordMismatchError',
      'password_mismatch',
      400,
      'password and confirm_password differ',
    ],
    [
      new SetupCompletedError(),
      'SetupCompletedError',
      'setup_completed',
      403,
      'setup has already been completed',
    ],
    [
      new InvalidCredentialsError(),
      'InvalidCredentialsError',
      'invalid_credentials',
      401,
      'wrong username or password',
    ],
    [
      new NoRefreshTokenError(),
      'NoRefreshTokenError',
      'no_refresh_token',
      401,
      'no refresh cookie; log in first',
    ],
    [
      new InvalidRefreshTokenError(),
      'InvalidRefreshTokenError',
      'invalid_refresh_token',
      401,
      'refresh token expired or invalid',
    ],
  ])(
    '%s carries its name, code, status and message, and no details',
    (err, name, code, status, message) => {
      expect(err).toBeInstanceOf(AppError);
      expect(err).toBeInstanceOf(Error);
      expect(err).toMatchObject({ name, code, status, message });
      expect(err.details).toBeUndefined();
    },
  );

  it('keeps the classes apart for instanceof', () => {
    expect(new InvalidCredentialsError()).not.toBeInstanceOf(InvalidRefreshTokenError);
    expect(new NoRefreshTokenError()).toBeInstanceOf(NoRefreshTokenError);
    expect(new PasswordMismatchError()).not.toBeInstanceOf(PasswordInvalidError);
  });

  it('captures no stack for these client errors', () => {
    expect(new InvalidCredentialsError().stack ?? '').not.toContain('auth-errors.test');
  });
});
