import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import type { Logger } from '../log/logger.js';
import type { SecretRepository } from '../store/secret-repository.js';
import {
  createSecretCrypto,
  generateSecretsKey,
  keyFingerprint,
  parseSecretsKey,
  type SecretCrypto,
} from './crypto.js';
import { SecretDecryptError, SecretsKeyError } from '../errors/secrets-errors.js';

export type KeyOrigin = 'config' | 'file';

export interface OpenedSecretsKey {
  crypto: SecretCrypto;
  key: Buffer;
  /** `config` when the key came from `secrets.key` / STEWARD_SECRETS_KEY. */
  origin: KeyOrigin;
  /** `<data>/secrets_key`, whether or not it is the origin. */
  file: string;
}

export const keyFilePath = (config: Pick<LoadedConfig, 'paths'>) =>
  path.join(config.paths.data, 'secrets_key');
/** Where a rotation puts the new key before it re-encrypts, so a crash never loses it. */
export const stagedKeyPath = (config: Pick<LoadedConfig, 'paths'>) => `${keyFilePath(config)}.new`;

const ENV_HINT = 'secrets.key (STEWARD_SECRETS_KEY)';

/** What opening the key reads and records in the store. */
export type KeyCheckStore = Pick<
  SecretRepository,
  'keyCheck' | 'recordKeyCheck' | 'hasStored' | 'redactionSet'
>;

/**
 * Finds the secrets key and proves it is the one the stored values use, before anything reads or
 * writes a secret. Never deletes or rewrites a stored value: a missing or wrong key is a
 * SecretsKeyError that stops start-up with what to do.
 */
export async function openSecretsKey(
  config: Pick<LoadedConfig, 'paths' | 'secrets'>,
  store: KeyCheckStore,
  log?: Logger,
): Promise<OpenedSecretsKey> {
  const file = keyFilePath(config);
  const staged = stagedKeyPath(config);
  const stored = await store.keyCheck();
  const matches = (key: Buffer) => stored === null || keyFingerprint(key) === stored;

  let key: Buffer;
  let origin: KeyOrigin;
  if (config.secrets.key !== undefined) {
    origin = 'config';
    key = parseSecretsKey(config.secrets.key, ENV_HINT);
    if (!matches(key)) {
      const pending = await readKeyFile(staged);
      if (pending && matches(pending)) {
        throw new SecretsKeyError(
          `${ENV_HINT} is the old key: the secrets were re-encrypted by a key rotation whose new key is in ${staged}. Set STEWARD_SECRETS_KEY to the content of that file. Stored secrets are unchanged.`,
        );
      }
      throw wrongKey(ENV_HINT);
    }
  } else {
    origin = 'file';
    const existing = await readKeyFile(file);
    const pending = await readKeyFile(staged);
    if (existing && matches(existing)) {
      key = existing;
    } else if (pending && stored !== null && matches(pending)) {
      // A rotation re-encrypted everything but stopped before replacing the key file.
      await rename(staged, file);
      log?.warn({ file }, 'completed an interrupted secrets key rotation');
      key = pending;
    } else if (existing) {
      throw wrongKey(file);
    } else if (stored !== null || (await store.hasStored())) {
      throw new SecretsKeyError(
        `secrets are stored in Redis but the key file ${file} is missing. Restore that file (or set STEWARD_SECRETS_KEY) from a backup. Stored secrets are left untouched; Steward will not start without their key.`,
      );
    } else {
      key = await createKeyFile(file);
      log?.info({ file }, 'generated a new secrets key');
    }
    await warnIfLoose(file, log);
  }

  const crypto = createSecretCrypto(key);
  if (stored === null) await recordCheck(store, crypto, key, origin === 'config' ? ENV_HINT : file);
  return { crypto, key, origin, file };
}

/**
 * The secrets keys present here, creating and recording nothing (`steward backup`, `restore`):
 * the configured key or the key file, then a rotation's staged key, each with where it is.
 */
export async function existingSecretsKeys(
  config: Pick<LoadedConfig, 'paths' | 'secrets'>,
): Promise<Array<{ key: Buffer; origin: string }>> {
  const found: Array<{ key: Buffer; origin: string }> = [];
  if (config.secrets.key !== undefined) {
    found.push({ key: parseSecretsKey(config.secrets.key, ENV_HINT), origin: ENV_HINT });
  } else {
    const key = await readKeyFile(keyFilePath(config));
    if (key) found.push({ key, origin: keyFilePath(config) });
  }
  const staged = await readKeyFile(stagedKeyPath(config));
  if (staged) found.push({ key: staged, origin: stagedKeyPath(config) });
  return found;
}

function wrongKey(origin: string): SecretsKeyError {
  return new SecretsKeyError(
    `the secrets key from ${origin} is not the key the stored secrets were encrypted with. Supply the right key; stored secrets are unchanged.`,
  );
}

/** First start with this key: prove it opens what is there (if anything), then remember it. */
async function recordCheck(
  store: KeyCheckStore,
  crypto: SecretCrypto,
  key: Buffer,
  origin: string,
): Promise<void> {
  const set = await store.redactionSet();
  if (set !== null) {
    try {
      crypto.decryptRedactionSet(set);
    } catch (err) {
      if (err instanceof SecretDecryptError) throw wrongKey(origin);
      throw err;
    }
  }
  const fingerprint = keyFingerprint(key);
  const created = await store.recordKeyCheck(fingerprint);
  // Another process got there first: it must have had the same key.
  if (!created && (await store.keyCheck()) !== fingerprint) throw wrongKey(origin);
}

export async function readKeyFile(file: string): Promise<Buffer | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new SecretsKeyError(
      `cannot read the secrets key file ${file}: ${(err as Error).message}`,
    );
  }
  return parseSecretsKey(text, file);
}

/** Exclusive create: two processes starting together end up with the same key. */
async function createKeyFile(file: string): Promise<Buffer> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = generateSecretsKey();
  try {
    await writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const other = await readKeyFile(file);
    if (!other) throw new SecretsKeyError(`the secrets key file ${file} vanished while starting`);
    return other;
  }
}

export async function writeKeyFile(file: string, key: Buffer): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600 });
}

async function warnIfLoose(file: string, log?: Logger): Promise<void> {
  try {
    const { mode } = await stat(file);
    if ((mode & 0o077) !== 0) {
      log?.warn(
        { file, mode: (mode & 0o777).toString(8) },
        'the secrets key file is readable by others; chmod 600 it',
      );
    }
  } catch {}
}
