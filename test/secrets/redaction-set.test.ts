import { describe, expect, it } from 'vitest';
import { SecretDecryptError } from '../../src/errors/secrets-errors.js';
import { createSecretCrypto, generateSecretsKey } from '../../src/secrets/crypto.js';
import {
  compareNames,
  openRedactionSet,
  sealRedactionSet,
} from '../../src/secrets/redaction-set.js';

const crypto = createSecretCrypto(generateSecretsKey());

describe('sealRedactionSet and openRedactionSet', () => {
  it('round-trips the entries, sorted by name', () => {
    const blob = sealRedactionSet(
      [
        { name: 'ZETA', value: 'zeta-value-123' },
        { name: 'ALPHA', value: 'alpha\nmulti-line ünïcode' },
      ],
      crypto,
    );
    expect(openRedactionSet(blob, crypto)).toEqual([
      { name: 'ALPHA', value: 'alpha\nmulti-line ünïcode' },
      { name: 'ZETA', value: 'zeta-value-123' },
    ]);
  });

  it('seals an empty set, and keeps only name and value of each entry', () => {
    expect(openRedactionSet(sealRedactionSet([], crypto), crypto)).toEqual([]);
    const extra = [{ name: 'A', value: 'v', extra: 'dropped' }];
    expect(openRedactionSet(sealRedactionSet(extra, crypto), crypto)).toEqual([
      { name: 'A', value: 'v' },
    ]);
  });

  it('does not sort the caller’s array in place', () => {
    const entries = [
      { name: 'B', value: 'b' },
      { name: 'A', value: 'a' },
    ];
    sealRedactionSet(entries, crypto);
    expect(entries.map((e) => e.name)).toEqual(['B', 'A']);
  });

  it('never holds a value in clear', () => {
    const blob = sealRedactionSet([{ name: 'TOKEN', value: 'plain-secret-value' }], crypto);
    expect(blob).not.toContain('plain-secret-value');
    expect(blob).not.toContain('TOKEN');
    expect(Buffer.from(blob.slice(3), 'base64').toString('latin1')).not.toContain('plain-secret');
  });

  it('opens only with the key it was sealed with, and only as a redaction set', () => {
    const blob = sealRedactionSet([{ name: 'A', value: 'value-1234' }], crypto);
    expect(() => openRedactionSet(blob, createSecretCrypto(generateSecretsKey()))).toThrow(
      SecretDecryptError,
    );
    // A secret's ciphertext is bound to its name: it cannot pass for the set.
    const secretBlob = crypto.encryptSecret('A', '[{"name":"A","value":"x"}]');
    expect(() => openRedactionSet(secretBlob, crypto)).toThrow(SecretDecryptError);
  });

  it('refuses a set of the wrong shape without quoting what it holds', () => {
    const odd = crypto.encryptRedactionSet(JSON.stringify([{ name: 'A', value: 42 }]));
    expect(() => openRedactionSet(odd, crypto)).toThrow(
      'the stored redaction set has an unexpected shape',
    );
    const notList = crypto.encryptRedactionSet(JSON.stringify({ leaked: 'secret-text' }));
    let message = '';
    try {
      openRedactionSet(notList, crypto);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe('the stored redaction set has an unexpected shape');
  });
});

describe('compareNames', () => {
  it('orders by code unit, not by locale: upper case, then _, then lower case', () => {
    expect(['b', '_a', 'B', 'A_2', 'A_10'].sort(compareNames)).toEqual([
      'A_10',
      'A_2',
      'B',
      '_a',
      'b',
    ]);
    expect(compareNames('X', 'X')).toBe(0);
    expect(compareNames('A', 'B')).toBe(-1);
    expect(compareNames('B', 'A')).toBe(1);
  });
});
