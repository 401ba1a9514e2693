import { readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { generateSecretsKey } from '../../src/secrets/crypto.js';
import { SecretsKeyError } from '../../src/errors/secrets-errors.js';
import { keyFilePath, openSecretsKey, stagedKeyPath } from '../../src/secrets/key.js';
import { rotateSecretsKey } from '../../src/secrets/rotate.js';
import { keys } from '../../src/store/keys.js';
import { keyStoreFixtures, secretServiceOn } from '../support/secrets.js';

const log = createLogger('silent');
const fixtures = keyStoreFixtures('seckey');
const setup = fixtures.setup;

afterAll(() => fixtures.cleanup());

describe('secrets key', () => {
  let ctx: ReturnType<typeof setup>;
  beforeEach((t) => {
    ctx = setup();
    t.onTestFinished(() => ctx.redis.disconnect());
  });

  it('generates <data>/secrets_key with mode 0600 on first start, and reuses it', async () => {
    const first = await openSecretsKey(ctx.config, ctx.secrets, log);
    expect(first.origin).toBe('file');
    const file = keyFilePath(ctx.config);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').equals(first.key)).toBe(true);
    expect(await ctx.redis.get(keys.secretsKeyCheck())).toBe(first.crypto.fingerprint);
    const second = await openSecretsKey(ctx.config, ctx.secrets, log);
    expect(second.key.equals(first.key)).toBe(true);
  });

  it('stops on a wrong key and keeps the stored values', async () => {
    const { crypto } = await openSecretsKey(ctx.config, ctx.secrets, log);
    await secretServiceOn(ctx.redis, crypto).set('KEEP_ME', 'the-value-to-keep-1');
    const before = await ctx.redis.get(keys.secret('KEEP_ME'));
    writeFileSync(keyFilePath(ctx.config), `${generateSecretsKey().toString('base64')}\n`);
    await expect(openSecretsKey(ctx.config, ctx.secrets, log)).rejects.toThrow(SecretsKeyError);
    await expect(openSecretsKey(ctx.config, ctx.secrets, log)).rejects.toThrow(
      /not the key the stored secrets/,
    );
    expect(await ctx.redis.get(keys.secret('KEEP_ME'))).toBe(before);
  });

  it('stops when the key file is missing but secrets are stored', async () => {
    const { crypto } = await openSecretsKey(ctx.config, ctx.secrets, log);
    await secretServiceOn(ctx.redis, crypto).set('KEEP_ME', 'the-value-to-keep-2');
    rmSync(keyFilePath(ctx.config));
    await expect(openSecretsKey(ctx.config, ctx.secrets, log)).rejects.toThrow(
      /key file .* is missing/,
    );
    expect(existsSync(keyFilePath(ctx.config))).toBe(false);
    expect(await ctx.redis.exists(keys.secret('KEEP_ME'))).toBe(1);
  });

  it('takes the key from configuration (STEWARD_SECRETS_KEY) and rejects a malformed one', async () => {
    const key = generateSecretsKey();
    const env = setup(key.toString('base64'));
    try {
      const opened = await openSecretsKey(env.config, env.secrets, log);
      expect(opened.origin).toBe('config');
      expect(opened.key.equals(key)).toBe(true);
      expect(existsSync(keyFilePath(env.config))).toBe(false);
      const bad = setup('bm90LWEta2V5');
      await expect(openSecretsKey(bad.config, bad.secrets, log)).rejects.toThrow(
        /STEWARD_SECRETS_KEY/,
      );
      bad.redis.disconnect();
      const wrong = setup(generateSecretsKey().toString('base64'));
      wrong.redis.disconnect();
      await expect(
        openSecretsKey({ ...wrong.config, paths: env.config.paths }, env.secrets, log),
      ).rejects.toThrow(SecretsKeyError);
    } finally {
      env.redis.disconnect();
    }
  });
});

describe('an interrupted key rotation', () => {
  it('finishes an interrupted rotation at start-up', async () => {
    const ctx = setup();
    try {
      const old = await openSecretsKey(ctx.config, ctx.secrets, log);
      await secretServiceOn(ctx.redis, old.crypto).set('ONE', 'first-value-1234');
      await rotateSecretsKey(ctx.config, log, { redis: ctx.redis });
      // Simulate a crash between EXEC and the rename: old key back in place, new one staged.
      const current = readFileSync(keyFilePath(ctx.config), 'utf8');
      writeFileSync(stagedKeyPath(ctx.config), current, { mode: 0o600 });
      writeFileSync(keyFilePath(ctx.config), `${old.key.toString('base64')}\n`, { mode: 0o600 });
      const opened = await openSecretsKey(ctx.config, ctx.secrets, log);
      expect(readFileSync(keyFilePath(ctx.config), 'utf8')).toBe(current);
      expect(existsSync(stagedKeyPath(ctx.config))).toBe(false);
      expect(await secretServiceOn(ctx.redis, opened.crypto).get('ONE')).toBe('first-value-1234');
    } finally {
      ctx.redis.disconnect();
    }
  });
});
