/**
 * The secrets key is missing, malformed or not the one the stored values were encrypted with.
 * Start-up stops on it: continuing would either fail every read or, worse, invite someone to
 * "fix" it by wiping the stored values.
 */
export class SecretsKeyError extends Error {
  override name = 'SecretsKeyError';
}

/** A stored ciphertext did not authenticate: wrong key, tampering, or moved to another name. */
export class SecretDecryptError extends Error {
  override name = 'SecretDecryptError';
}
