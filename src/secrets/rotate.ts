import { rename, rm } from 'node:fs/promises';
import type { LoadedConfig } from '../config/load.js';
import type { Logger } from '../log/logger.js';
import type { Redis } from '../store/redis.js';
import { createSecretRepository } from '../store/secret-repository.js';
import { createSecretCrypto, generateSecretsKey, keyFingerprint } from './crypto.js';
import { openSecretsKey, stagedKeyPath, writeKeyFile, type KeyOrigin } from './key.js';
import { reencryptAll } from './secret-service.js';

export interface RotateOptions {
  /** A store connection (key prefix applied), e.g. the booted context's. */
  redis: Redis;
  /** Where the new key is shown when it came from the environment (default: stdout). */
  print?: (text: string) => void;
}

export interface RotateResult {
  secrets: number;
  origin: KeyOrigin;
  /** The key file now holding the new key (file origin), else null. */
  file: string | null;
}

/**
 * `steward secrets rotate-key`: a new key, every secret re-encrypted with it atomically, then the
 * key file replaced. The new key is written to `secrets_key.new` before Redis changes, so a crash
 * at any point leaves a key that opens what is stored (start-up finishes the swap). When the key
 * came from the environment it is printed instead, for the operator to set STEWARD_SECRETS_KEY.
 * Other processes keep the old key in memory: restart them afterwards.
 */
export async function rotateSecretsKey(
  config: LoadedConfig,
  log: Logger,
  options: RotateOptions,
): Promise<RotateResult> {
  const secrets = createSecretRepository(options.redis);
  const print = options.print ?? ((text: string) => process.stdout.write(text));
  const current = await openSecretsKey(config, secrets, log);
  const newKey = generateSecretsKey();
  const staged = stagedKeyPath(config);
  await writeKeyFile(staged, newKey);
  let count: number;
  try {
    count = await reencryptAll(secrets, current.crypto, createSecretCrypto(newKey), newKey);
  } catch (err) {
    // The reply may be lost after EXEC ran: the check value says which key is in force.
    const check = await secrets.keyCheck().catch(() => null);
    if (check !== keyFingerprint(newKey)) {
      await rm(staged, { force: true });
      throw err;
    }
    count = await secrets.count();
  }
  if (current.origin === 'file') {
    await rename(staged, current.file);
    log.info({ file: current.file, secrets: count }, 'secrets key rotated');
    return { secrets: count, origin: 'file', file: current.file };
  }
  print(
    `Secrets re-encrypted with a new key. Set STEWARD_SECRETS_KEY to the line below, restart every Steward process, then delete ${staged}:\n${newKey.toString('base64')}\n`,
  );
  log.info({ secrets: count }, 'secrets key rotated; the new key was printed');
  return { secrets: count, origin: 'config', file: null };
}
