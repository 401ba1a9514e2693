import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import type { SecretCrypto } from '../../src/secrets/crypto.js';
import { createSecretService } from '../../src/secrets/secret-service.js';
import type { Redis } from '../../src/store/redis.js';
import { createSecretRepository } from '../../src/store/secret-repository.js';
import { dropPrefix, storeRedis, testRedisUrl, uniquePrefix } from './redis.js';

/** The secret service over its repository on `redis`, as the process builds it. */
export function secretServiceOn(redis: Redis, crypto: SecretCrypto, now?: () => Date) {
  return createSecretService({
    secrets: createSecretRepository(redis),
    crypto,
    ...(now ? { now } : {}),
  });
}

/**
 * A deployment for secrets-key tests: its own data dir and key prefix on the test Redis
 * (`STEWARD_SECRETS_KEY` set when `envKey` is given). `cleanup` removes every one made.
 */
export function keyStoreFixtures(label: string) {
  const dirs: string[] = [];
  const prefixes: string[] = [];
  return {
    setup(envKey?: string) {
      const dir = mkdtempSync(path.join(os.tmpdir(), `steward-${label}-`));
      dirs.push(dir);
      const prefix = uniquePrefix(label);
      prefixes.push(prefix);
      const config = loadConfig({
        env: envKey ? { STEWARD_SECRETS_KEY: envKey } : {},
        cwd: dir,
        overrides: {
          data_dir: path.join(dir, 'data'),
          'redis.url': testRedisUrl(),
          'redis.prefix': prefix,
        },
      });
      const redis = storeRedis(prefix);
      return { config, redis, secrets: createSecretRepository(redis), dir };
    },
    async cleanup() {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      for (const prefix of prefixes) await dropPrefix(prefix);
    },
  };
}
