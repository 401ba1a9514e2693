import { createError } from './catalogue.js';

/** Setup and login failures of the spec's authentication endpoints. */

export const PasswordInvalidError = createError(
  'password_invalid',
  'PasswordInvalidError',
  (problem: string) => problem,
);
export type PasswordInvalidError = InstanceType<typeof PasswordInvalidError>;

export const PasswordMismatchError = createError(
  'password_mismatch',
  'PasswordMismatchError',
  () => 'password and confirm_password differ',
);
export type PasswordMismatchError = InstanceType<typeof PasswordMismatchError>;

export const SetupCompletedError = createError(
  'setup_completed',
  'SetupCompletedError',
  () => 'setup has already been completed',
);
export type SetupCompletedError = InstanceType<typeof SetupCompletedError>;

export const InvalidCredentialsError = createError(
  'invalid_credentials',
  'InvalidCredentialsError',
  () => 'wrong username or password',
);
export type InvalidCredentialsError = InstanceType<typeof InvalidCredentialsError>;

export const NoRefreshTokenError = createError(
  'no_refresh_token',
  'NoRefreshTokenError',
  () => 'no refresh cookie; log in first',
);
export type NoRefreshTokenError = InstanceType<typeof NoRefreshTokenError>;

export const InvalidRefreshTokenError = createError(
  'invalid_refresh_token',
  'InvalidRefreshTokenError',
  () => 'refresh token expired or invalid',
);
export type InvalidRefreshTokenError = InstanceType<typeof InvalidRefreshTokenError>;
