import { describe, expect, it } from 'vitest';
import {
  createSecretCrypto,
  generateSecretsKey,
  keyFingerprint,
  parseSecretsKey,
} from '../../src/secrets/crypto.js';
import { SecretDecryptError, SecretsKeyError } from '../../src/errors/secrets-errors.js';

const VALUE = 'hunter2-correct-horse-battery-staple';

describe('secret crypto', () => {
  const key = generateSecretsKey();
  const crypto = createSecretCrypto(key);

  it('round-trips, with a fresh nonce per write', () => {
    const a = crypto.encryptSecret('DB_PASSWORD', VALUE);
    const b = crypto.encryptSecret('DB_PASSWORD', VALUE);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1:[A-Za-z0-9+/]+=*$/);
    expect(a).not.toContain(VALUE);
    expect(crypto.decryptSecret('DB_PASSWORD', a)).toBe(VALUE);
    expect(
      crypto.decryptSecret('DB_PASSWORD', crypto.encryptSecret('DB_PASSWORD', 'ünïcödé €')),
    ).toBe('ünïcödé €');
  });

  it('binds the name: a ciphertext moved to another name does not decrypt', () => {
    const blob = crypto.encryptSecret('DB_PASSWORD', VALUE);
    expect(() => crypto.decryptSecret('OTHER', blob)).toThrow(SecretDecryptError);
    expect(() => crypto.decryptRedactionSet(blob)).toThrow(SecretDecryptError);
  });

  it('fails clearly with a wrong key, without echoing anything secret', () => {
    const blob = crypto.encryptSecret('DB_PASSWORD', VALUE);
    const other = createSecretCrypto(generateSecretsKey());
    let error: unknown;
    try {
      other.decryptSecret('DB_PASSWORD', blob);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(SecretDecryptError);
    expect((error as Error).message).toMatch(/wrong secrets key/);
    expect((error as Error).message).not.toContain(VALUE);
    expect((error as Error).message).not.toContain(key.toString('base64'));
    // The right key still opens it: nothing was consumed.
    expect(crypto.decryptSecret('DB_PASSWORD', blob)).toBe(VALUE);
  });

  it('detects tampering and truncation', () => {
    const blob = crypto.encryptSecret('A', VALUE);
    const raw = Buffer.from(blob.slice(3), 'base64');
    raw[14] = (raw[14] as number) ^ 1;
    expect(() => crypto.decryptSecret('A', `v1:${raw.toString('base64')}`)).toThrow(
      SecretDecryptError,
    );
    expect(() => crypto.decryptSecret('A', 'v1:AAAA')).toThrow(/truncated/);
    expect(() => crypto.decryptSecret('A', 'v9:AAAA')).toThrow(/format/);
  });

  it('parses keys strictly and fingerprints them one-way', () => {
    expect(parseSecretsKey(`${key.toString('base64')}\n`, 'test').equals(key)).toBe(true);
    expect(() => parseSecretsKey('too-short', 'STEWARD_SECRETS_KEY')).toThrow(SecretsKeyError);
    expect(() => parseSecretsKey(Buffer.alloc(16).toString('base64'), 'x')).toThrow(/32 bytes/);
    expect(keyFingerprint(key)).toBe(crypto.fingerprint);
    expect(keyFingerprint(key)).not.toContain(key.toString('hex'));
    expect(keyFingerprint(generateSecretsKey())).not.toBe(crypto.fingerprint);
  });
});
