import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { BadRequestError, ConflictError } from '../../src/errors/request-errors.js';
import { SecretDecryptError, SecretsKeyError } from '../../src/errors/secrets-errors.js';
import {
  createSecretCrypto,
  generateSecretsKey,
  keyFingerprint,
} from '../../src/secrets/crypto.js';
import { openRedactionSet } from '../../src/secrets/redaction-set.js';
import { createSecretService, reencryptAll } from '../../src/secrets/secret-service.js';
import { keys } from '../../src/store/keys.js';
import type { Redis } from '../../src/store/redis.js';
import {
  createSecretRepository,
  type SecretRepository,
} from '../../src/store/secret-repository.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

const prefixes: string[] = [];
const connections: Redis[] = [];

/** A fresh store: its own prefix, a repository and a service under a new key. */
function fresh(now?: () => Date) {
  const prefix = uniquePrefix('secret-service');
  prefixes.push(prefix);
  const redis = storeRedis(prefix);
  connections.push(redis);
  const key = generateSecretsKey();
  const crypto = createSecretCrypto(key);
  const secrets = createSecretRepository(redis);
  const lines: string[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
  const service = createSecretService({ secrets, crypto, log, ...(now ? { now } : {}) });
  return { redis, key, crypto, secrets, service, lines };
}

afterAll(async () => {
  for (const redis of connections) redis.disconnect();
  for (const prefix of prefixes) await dropPrefix(prefix);
});

describe('secret service', () => {
  it('refuses a bad name or value, and stores nothing', async () => {
    const { service, secrets } = fresh();
    await expect(service.set('1BAD', 'value-12345')).rejects.toThrow(BadRequestError);
    await expect(service.set('has-dash', 'value-12345')).rejects.toThrow(
      'invalid secret name: a letter or _ followed by up to 127 letters, digits or _',
    );
    await expect(service.set('OK', '')).rejects.toThrow('value must not be empty');
    await expect(service.set('OK', 'x'.repeat(64 * 1024 + 1))).rejects.toThrow(
      'value must be at most 65536 bytes',
    );
    expect(await secrets.names()).toEqual([]);
  });

  it('answers null and false for names that cannot exist or were never set', async () => {
    const { service } = fresh();
    expect(await service.get('../etc')).toBeNull();
    expect(await service.delete('not a name')).toBe(false);
    expect(await service.delete('NEVER_SET')).toBe(false);
  });

  it('keeps the sealed redaction set equal to the stored values through sets and deletes', async () => {
    const { service, secrets, crypto, redis } = fresh();
    await service.set('B_TOKEN', 'b-value-12345');
    await service.set('A_TOKEN', 'a-value-12345');
    await service.set('B_TOKEN', 'b-value-changed');
    expect(await service.delete('A_TOKEN')).toBe(true);
    const set = openRedactionSet((await secrets.redactionSet()) as string, crypto);
    expect(set).toEqual([{ name: 'B_TOKEN', value: 'b-value-changed' }]);
    // A delete of a name that was never set writes nothing.
    const version = await redis.get(keys.redactionVersion());
    expect(await service.delete('A_TOKEN')).toBe(false);
    expect(await redis.get(keys.redactionVersion())).toBe(version);
  });

  it('stamps last_updated from its clock and lists names in code-unit order', async () => {
    const { service } = fresh(() => new Date('2026-05-01T00:00:00.000Z'));
    await service.set('b_lower', 'value-12345');
    await service.set('Z_UPPER', 'value-12345');
    await service.set('_under', 'value-12345');
    expect(await service.names()).toEqual(['Z_UPPER', '_under', 'b_lower']);
    expect(await service.list(['A_DECLARED', 'b_lower'])).toEqual([
      { name: 'A_DECLARED', set: false, last_updated: null },
      { name: 'Z_UPPER', set: true, last_updated: '2026-05-01T00:00:00.000Z' },
      { name: '_under', set: true, last_updated: '2026-05-01T00:00:00.000Z' },
      { name: 'b_lower', set: true, last_updated: '2026-05-01T00:00:00.000Z' },
    ]);
    expect(await service.counts(['A_DECLARED', 'b_lower', 'A_DECLARED'])).toEqual({
      total: 4,
      configured: 3,
    });
  });

  it('warns about a short value and logs the change without the value', async () => {
    const { service, lines } = fresh();
    expect(await service.set('PIN', '1234')).toEqual({
      name: 'PIN',
      set: true,
      warning: 'value is shorter than 8 characters: too short to redact reliably',
    });
    await service.set('LONG', 'long-enough-value');
    await service.delete('PIN');
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged.map(({ msg, secret, short }) => ({ msg, secret, short }))).toEqual([
      { msg: 'secret set', secret: 'PIN', short: true },
      { msg: 'secret set', secret: 'LONG', short: false },
      { msg: 'secret deleted', secret: 'PIN', short: undefined },
    ]);
    expect(lines.join('\n')).not.toContain('long-enough-value');
  });

  it('refuses to write once the key was rotated by another process', async () => {
    const { service, secrets, redis } = fresh();
    await service.set('ONE', 'first-value-1234');
    await redis.set(keys.secretsKeyCheck(), keyFingerprint(generateSecretsKey()));
    const err = await service.set('TWO', 'second-value-5678').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SecretsKeyError);
    expect((err as Error).message).toBe(
      'the secrets key was rotated since this process started; restart it',
    );
    await expect(service.delete('ONE')).rejects.toThrow(SecretsKeyError);
    expect(await secrets.names()).toEqual(['ONE']);
  });

  it('writes under its own key check value', async () => {
    const { service, crypto, redis } = fresh();
    await redis.set(keys.secretsKeyCheck(), crypto.fingerprint);
    expect(await service.set('ONE', 'first-value-1234')).toEqual({ name: 'ONE', set: true });
  });

  it('refuses a change when a stored value no longer decrypts, naming the secret only', async () => {
    const { service, secrets, redis } = fresh();
    await service.set('GOOD', 'good-value-1234');
    await redis.set(keys.secret('MOVED'), (await secrets.blob('GOOD')) as string);
    await redis.hset(keys.secretIndex(), 'MOVED', new Date().toISOString());
    const err = await service.set('NEW', 'new-value-1234').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SecretDecryptError);
    expect((err as Error).message).toContain('steward:secret:MOVED');
    expect((err as Error).message).not.toContain('good-value-1234');
    await expect(service.get('MOVED')).rejects.toThrow(SecretDecryptError);
  });

  it('answers 409 conflict when other writers keep the set changing', async () => {
    const { secrets, crypto } = fresh();
    const busy: SecretRepository = { ...secrets, transact: async () => 'contended' };
    const service = createSecretService({ secrets: busy, crypto });
    const err = await service.set('ONE', 'first-value-1234').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(err).toMatchObject({
      status: 409,
      message: 'secrets are being changed concurrently; try again',
    });
  });
});

describe('reencryptAll', () => {
  it('moves every secret and the redaction set to the new key, and records its check value', async () => {
    const { service, secrets, crypto } = fresh();
    await service.set('ONE', 'first-value-1234');
    await service.set('TWO', 'second-value-5678');
    const nextKey = generateSecretsKey();
    const next = createSecretCrypto(nextKey);
    expect(await reencryptAll(secrets, crypto, next, nextKey)).toBe(2);
    expect(await secrets.keyCheck()).toBe(keyFingerprint(nextKey));
    expect(next.decryptSecret('ONE', (await secrets.blob('ONE')) as string)).toBe(
      'first-value-1234',
    );
    const two = (await secrets.blob('TWO')) as string;
    expect(() => crypto.decryptSecret('TWO', two)).toThrow(SecretDecryptError);
    expect(openRedactionSet((await secrets.redactionSet()) as string, next)).toEqual([
      { name: 'ONE', value: 'first-value-1234' },
      { name: 'TWO', value: 'second-value-5678' },
    ]);
    // The old service may no longer write.
    await expect(service.set('THREE', 'third-value-9999')).rejects.toThrow(SecretsKeyError);
  });

  it('refuses when the stored values use another key than the current one', async () => {
    const { service, secrets, crypto, redis } = fresh();
    await service.set('ONE', 'first-value-1234');
    await redis.set(keys.secretsKeyCheck(), keyFingerprint(generateSecretsKey()));
    const nextKey = generateSecretsKey();
    await expect(
      reencryptAll(secrets, crypto, createSecretCrypto(nextKey), nextKey),
    ).rejects.toThrow('the stored secrets do not use the current key');
    expect(crypto.decryptSecret('ONE', (await secrets.blob('ONE')) as string)).toBe(
      'first-value-1234',
    );
  });
});
