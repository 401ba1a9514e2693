import type { SecretCrypto } from '../../src/secrets/crypto.js';
import { createSecretService } from '../../src/secrets/secret-service.js';
import type { Redis } from '../../src/store/redis.js';
import { createSecretRepository } from '../../src/store/secret-repository.js';

/** The secret service over its repository on `redis`, as the process builds it. */
export function secretServiceOn(redis: Redis, crypto: SecretCrypto, now?: () => Date) {
  return createSecretService({
    secrets: createSecretRepository(redis),
    crypto,
    ...(now ? { now } : {}),
  });
}
