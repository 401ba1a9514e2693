import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { SecretDecryptError, SecretsKeyError } from '../errors/secrets-errors.js';

export const SECRETS_KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Format tag, so a later change of scheme can tell old blobs from new ones. */
const VERSION = 'v1';

/** Associated data: binds a ciphertext to what it is, so it cannot be replayed as another. */
const secretContext = (name: string) => `steward:secret:${name}`;
const REDACTION_SET_CONTEXT = 'steward:redaction-set';

export interface SecretCrypto {
  /** `v1:<base64 of nonce | ciphertext | tag>`; a fresh random nonce per call. */
  encrypt(context: string, plaintext: string): string;
  /** Throws SecretDecryptError (never with the plaintext or the key in it). */
  decrypt(context: string, blob: string): string;
  encryptSecret(name: string, value: string): string;
  decryptSecret(name: string, blob: string): string;
  encryptRedactionSet(json: string): string;
  decryptRedactionSet(blob: string): string;
  /** A one-way check value of the key, safe to store beside the ciphertexts. */
  readonly fingerprint: string;
}

/** A key as written in its file or variable: base64 of 32 bytes; null for anything else. */
export function decodeKey(text: string): Buffer | null {
  const trimmed = text.trim();
  const key = Buffer.from(trimmed, 'base64');
  // Buffer.from ignores junk, so re-encode to be sure the text really was base64.
  const canonical = /^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) && key.length === SECRETS_KEY_BYTES;
  return canonical ? key : null;
}

export function parseSecretsKey(text: string, origin: string): Buffer {
  const key = decodeKey(text);
  if (!key) {
    throw new SecretsKeyError(
      `the secrets key from ${origin} is not base64 of ${SECRETS_KEY_BYTES} bytes (generate one with: openssl rand -base64 32)`,
    );
  }
  return key;
}

export function generateSecretsKey(): Buffer {
  return randomBytes(SECRETS_KEY_BYTES);
}

export function keyFingerprint(key: Buffer): string {
  return `${VERSION}:${createHmac('sha256', key).update('steward secrets key check').digest('hex')}`;
}

export function createSecretCrypto(key: Buffer): SecretCrypto {
  if (key.length !== SECRETS_KEY_BYTES) {
    throw new SecretsKeyError(`the secrets key must be ${SECRETS_KEY_BYTES} bytes`);
  }
  // A private copy: the caller may zero or reuse its buffer.
  const k = Buffer.from(key);

  function encrypt(context: string, plaintext: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', k, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64')}`;
  }

  function decrypt(context: string, blob: string): string {
    const [version, payload] = blob.split(':', 2);
    if (version !== VERSION || payload === undefined) {
      throw new SecretDecryptError(`cannot decrypt ${context}: unknown ciphertext format`);
    }
    const raw = Buffer.from(payload, 'base64');
    if (raw.length < NONCE_BYTES + TAG_BYTES) {
      throw new SecretDecryptError(`cannot decrypt ${context}: ciphertext truncated`);
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', k, raw.subarray(0, NONCE_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      const body = raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretDecryptError(
        `cannot decrypt ${context}: wrong secrets key, or the stored value was altered or moved`,
      );
    }
  }

  return {
    encrypt,
    decrypt,
    encryptSecret: (name, value) => encrypt(secretContext(name), value),
    decryptSecret: (name, blob) => decrypt(secretContext(name), blob),
    encryptRedactionSet: (json) => encrypt(REDACTION_SET_CONTEXT, json),
    decryptRedactionSet: (blob) => decrypt(REDACTION_SET_CONTEXT, blob),
    fingerprint: keyFingerprint(k),
  };
}
