import { existsSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { SecretDecryptError } from '../../src/errors/secrets-errors.js';
import { createLogger } from '../../src/log/logger.js';
import { generateSecretsKey, keyFingerprint } from '../../src/secrets/crypto.js';
import { keyFilePath, openSecretsKey, stagedKeyPath } from '../../src/secrets/key.js';
import { rotateSecretsKey } from '../../src/secrets/rotate.js';
import { keys } from '../../src/store/keys.js';
import { keyStoreFixtures, secretServiceOn } from '../support/secrets.js';

const log = createLogger('silent');
const fixtures = keyStoreFixtures('rotate');
const setup = fixtures.setup;

afterAll(() => fixtures.cleanup());

describe('rotateSecretsKey', () => {
  it('re-encrypts every secret and replaces the key file', async () => {
    const ctx = setup();
    try {
      const old = await openSecretsKey(ctx.config, ctx.secrets, log);
      const store = secretServiceOn(ctx.redis, old.crypto);
      await store.set('ONE', 'first-value-1234');
      await store.set('TWO', 'second-value-5678');
      const version = Number(await ctx.redis.get(keys.redactionVersion()));
      const result = await rotateSecretsKey(ctx.config, log, { redis: ctx.redis });
      expect(result).toEqual({ secrets: 2, origin: 'file', file: keyFilePath(ctx.config) });
      expect(existsSync(stagedKeyPath(ctx.config))).toBe(false);
      const fresh = await openSecretsKey(ctx.config, ctx.secrets, log);
      expect(fresh.key.equals(old.key)).toBe(false);
      const next = secretServiceOn(ctx.redis, fresh.crypto);
      expect(await next.get('ONE')).toBe('first-value-1234');
      expect(await next.get('TWO')).toBe('second-value-5678');
      expect(Number(await ctx.redis.get(keys.redactionVersion()))).toBe(version + 1);
      // A process still on the old key must not write under it.
      await expect(store.set('THREE', 'third-value-9999')).rejects.toThrow(/rotated/);
    } finally {
      ctx.redis.disconnect();
    }
  });

  it('prints the new key when the key came from the environment', async () => {
    const ctx = setup(generateSecretsKey().toString('base64'));
    try {
      const old = await openSecretsKey(ctx.config, ctx.secrets, log);
      await secretServiceOn(ctx.redis, old.crypto).set('ONE', 'first-value-1234');
      let printed = '';
      const result = await rotateSecretsKey(ctx.config, log, {
        redis: ctx.redis,
        print: (t) => (printed += t),
      });
      expect(result.origin).toBe('config');
      const newKey = printed.trim().split('\n').at(-1) as string;
      // The old key no longer opens; the printed one does; the staged copy is the same key.
      await expect(openSecretsKey(ctx.config, ctx.secrets, log)).rejects.toThrow(/rotation/);
      expect(readFileSync(stagedKeyPath(ctx.config), 'utf8').trim()).toBe(newKey);
      const next = await openSecretsKey(
        { ...ctx.config, secrets: { key: newKey } },
        ctx.secrets,
        log,
      );
      expect(await secretServiceOn(ctx.redis, next.crypto).get('ONE')).toBe('first-value-1234');
    } finally {
      ctx.redis.disconnect();
    }
  });

  it('rotates an empty store: nothing to re-encrypt, a new key all the same', async () => {
    const ctx = setup();
    try {
      const old = await openSecretsKey(ctx.config, ctx.secrets, log);
      const result = await rotateSecretsKey(ctx.config, log, { redis: ctx.redis });
      expect(result).toEqual({ secrets: 0, origin: 'file', file: keyFilePath(ctx.config) });
      const fresh = await openSecretsKey(ctx.config, ctx.secrets, log);
      expect(fresh.key.equals(old.key)).toBe(false);
      expect(await ctx.secrets.keyCheck()).toBe(keyFingerprint(fresh.key));
    } finally {
      ctx.redis.disconnect();
    }
  });

  it('changes nothing when a stored value does not decrypt: same key file, no staged key', async () => {
    const ctx = setup();
    try {
      const old = await openSecretsKey(ctx.config, ctx.secrets, log);
      await secretServiceOn(ctx.redis, old.crypto).set('GOOD', 'good-value-1234');
      // A ciphertext moved to another name no longer authenticates.
      await ctx.redis.set(keys.secret('MOVED'), (await ctx.secrets.blob('GOOD')) as string);
      await ctx.redis.hset(keys.secretIndex(), 'MOVED', new Date().toISOString());
      const keyFile = readFileSync(keyFilePath(ctx.config), 'utf8');
      const check = await ctx.secrets.keyCheck();

      const err = await rotateSecretsKey(ctx.config, log, { redis: ctx.redis }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SecretDecryptError);
      expect((err as Error).message).not.toContain('good-value-1234');
      expect(readFileSync(keyFilePath(ctx.config), 'utf8')).toBe(keyFile);
      expect(existsSync(stagedKeyPath(ctx.config))).toBe(false);
      expect(await ctx.secrets.keyCheck()).toBe(check);
      expect(await secretServiceOn(ctx.redis, old.crypto).get('GOOD')).toBe('good-value-1234');
    } finally {
      ctx.redis.disconnect();
    }
  });

  it('refuses to rotate under a key that does not open the store', async () => {
    const ctx = setup();
    try {
      const old = await openSecretsKey(ctx.config, ctx.secrets, log);
      await secretServiceOn(ctx.redis, old.crypto).set('ONE', 'first-value-1234');
      const wrong = { ...ctx.config, secrets: { key: generateSecretsKey().toString('base64') } };
      await expect(rotateSecretsKey(wrong, log, { redis: ctx.redis })).rejects.toThrow(
        /not the key the stored secrets were encrypted with/,
      );
      expect(existsSync(stagedKeyPath(ctx.config))).toBe(false);
      expect(await secretServiceOn(ctx.redis, old.crypto).get('ONE')).toBe('first-value-1234');
    } finally {
      ctx.redis.disconnect();
    }
  });
});
