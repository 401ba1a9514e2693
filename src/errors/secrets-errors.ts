import { AppError } from './catalogue.js';

/**
 * The secrets key is missing, malformed or not the one the stored values were encrypted with.
 * Start-up stops on it: continuing would either fail every read or, worse, invite someone to
 * "fix" it by wiping the stored values.
 */
export class SecretsKeyError extends AppError {
  constructor(message: string) {
    super('secrets_key_invalid', message);
    this.name = 'SecretsKeyError';
  }
}

/**
 * The approval key (`<data>/approval_key`, STEWARD_APPROVAL_KEY) is malformed or unreadable.
 * Start-up stops on it: approvals could be neither made nor checked.
 */
export class ApprovalKeyError extends AppError {
  constructor(message: string) {
    super('approval_key_invalid', message);
    this.name = 'ApprovalKeyError';
  }
}

/** A stored ciphertext did not authenticate: wrong key, tampering, or moved to another name. */
export class SecretDecryptError extends AppError {
  constructor(message: string) {
    super('secret_undecryptable', message);
    this.name = 'SecretDecryptError';
  }
}
