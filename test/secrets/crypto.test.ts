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

describe('secret crypto, edge cases', () => {
  const key = generateSecretsKey();

  it('round-trips the empty string and a 64 KiB value', () => {
    const crypto = createSecretCrypto(key);
    expect(crypto.decryptSecret('E', crypto.encryptSecret('E', ''))).toBe('');
    const big = 'ü'.repeat(32 * 1024);
    expect(crypto.decryptSecret('B', crypto.encryptSecret('B', big))).toBe(big);
  });

  it('keeps its own copy of the key: zeroing the caller’s buffer changes nothing', () => {
    const mine = Buffer.from(key);
    const crypto = createSecretCrypto(mine);
    const blob = crypto.encryptSecret('A', VALUE);
    mine.fill(0);
    expect(crypto.decryptSecret('A', blob)).toBe(VALUE);
    expect(createSecretCrypto(key).decryptSecret('A', blob)).toBe(VALUE);
  });

  it('binds the redaction set to its own context', () => {
    const crypto = createSecretCrypto(key);
    const set = crypto.encryptRedactionSet('["a","b"]');
    expect(crypto.decryptRedactionSet(set)).toBe('["a","b"]');
    expect(() => crypto.decryptSecret('redaction-set', set)).toThrow(SecretDecryptError);
    // A secret named like the set's context cannot be passed off as the set either.
    expect(() => crypto.decryptRedactionSet(crypto.encrypt('steward:secret:x', '[]'))).toThrow(
      SecretDecryptError,
    );
  });

  it('refuses a key of the wrong length when building', () => {
    expect(() => createSecretCrypto(Buffer.alloc(16))).toThrow(SecretsKeyError);
    expect(() => createSecretCrypto(Buffer.alloc(33))).toThrow(/must be 32 bytes/);
  });

  it('accepts only base64 of 32 bytes, naming where the key came from', () => {
    // 0xfb bytes encode to '+' and '/', which the URL-safe alphabet writes differently.
    const fixed = Buffer.alloc(32, 0xfb);
    const text = fixed.toString('base64');
    expect(parseSecretsKey(`  ${text}\r\n`, 'x').equals(fixed)).toBe(true);
    for (const bad of [fixed.toString('base64url'), `${text}!`, text.slice(4), '']) {
      expect(() => parseSecretsKey(bad, '/data/secrets_key'), bad).toThrow(
        /the secrets key from \/data\/secrets_key is not base64 of 32 bytes/,
      );
    }
  });

  it('never puts the key or the plaintext into a decrypt error', () => {
    const crypto = createSecretCrypto(key);
    for (const blob of ['v1:', 'v1:!!!!', 'garbage', `v1:${Buffer.alloc(40).toString('base64')}`]) {
      const message = (() => {
        try {
          crypto.decryptSecret('NAME', blob);
        } catch (err) {
          expect(err, blob).toBeInstanceOf(SecretDecryptError);
          return (err as Error).message;
        }
        return 'no error';
      })();
      expect(message, blob).toMatch(/^cannot decrypt steward:secret:NAME: /);
      expect(message).not.toContain(key.toString('base64'));
    }
  });
});
