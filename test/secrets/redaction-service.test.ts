import { afterAll, describe, expect, it } from 'vitest';
import { createSecretCrypto, generateSecretsKey } from '../../src/secrets/crypto.js';
import {
  createRedactionService,
  type RedactionService,
} from '../../src/secrets/redaction-service.js';
import { createRedactionSetRepository } from '../../src/store/redaction-set-repository.js';
import { createRedis, type Redis } from '../../src/store/redis.js';
import { keys } from '../../src/store/keys.js';
import { dropPrefix, storeRedis, testRedisUrl, uniquePrefix } from '../support/redis.js';
import { secretServiceOn } from '../support/secrets.js';

const crypto = createSecretCrypto(generateSecretsKey());
const services: RedactionService[] = [];
const connectionsOpen: Redis[] = [];
const prefixes: string[] = [];

afterAll(async () => {
  for (const service of services) await service.close();
  for (const redis of connectionsOpen) redis.disconnect();
  for (const prefix of prefixes) await dropPrefix(prefix);
});

function connections(label: string) {
  const prefix = uniquePrefix(label);
  prefixes.push(prefix);
  const make = () => {
    const redis = storeRedis(prefix);
    connectionsOpen.push(redis);
    return redis;
  };
  const subscriberFactory = () => createRedis({ url: testRedisUrl(), prefix }, 'subscriber');
  return { prefix, make, subscriberFactory };
}

async function within(ms: number, check: () => boolean): Promise<number> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - start;
}

describe('redaction service', () => {
  it('a set through one process is redacted by another within 1 s (pub/sub)', async () => {
    const { make, subscriberFactory } = connections('redsvc');
    // Polling far slower than the deadline, so only the published message can meet it.
    const a = createRedactionService({
      redactionSet: createRedactionSetRepository({ redis: make(), subscriberFactory }),
      crypto,
      pollMs: 60_000,
    });
    const b = createRedactionService({
      redactionSet: createRedactionSetRepository({ redis: make(), subscriberFactory }),
      crypto,
      pollMs: 60_000,
    });
    services.push(a, b);
    await Promise.all([a.ready, b.ready]);
    expect(b.redact('token: live-token-abcdef123')).toBe('token: live-token-abcdef123');

    const store = secretServiceOn(make(), crypto);
    await store.set('LIVE_TOKEN', 'live-token-abcdef123');
    const took = await within(
      1000,
      () => b.redact('x live-token-abcdef123') === 'x [REDACTED:LIVE_TOKEN]',
    );
    expect(took).toBeLessThan(1000);
    await within(1000, () => a.current().names.includes('LIVE_TOKEN'));

    await store.delete('LIVE_TOKEN');
    await within(1000, () => b.redact('x live-token-abcdef123') === 'x live-token-abcdef123');
    expect(b.version()).toBe(2);
  });

  it('loads what is already stored at start', async () => {
    const { make } = connections('redsvc');
    await secretServiceOn(make(), crypto).set('EARLY', 'stored-before-start-1');
    const service = createRedactionService({
      redactionSet: createRedactionSetRepository({ redis: make() }),
      crypto,
    });
    services.push(service);
    await service.ready;
    expect(service.redact('stored-before-start-1')).toBe('[REDACTED:EARLY]');
  });

  it('falls back to polling the version when no message arrives', async () => {
    const { make } = connections('redsvc');
    const service = createRedactionService({
      redactionSet: createRedactionSetRepository({ redis: make() }),
      crypto,
      pollMs: 50,
    });
    services.push(service);
    await service.ready;
    await secretServiceOn(make(), crypto).set('POLLED', 'polled-secret-value');
    await within(1000, () => service.redact('polled-secret-value') === '[REDACTED:POLLED]');
  });

  it('keeps the last good redactor when a reload fails', async () => {
    const { make } = connections('redsvc');
    const redis = make();
    await secretServiceOn(redis, crypto).set('GOOD', 'good-secret-value-1');
    const service = createRedactionService({
      redactionSet: createRedactionSetRepository({ redis: make() }),
      crypto,
      pollMs: 50,
    });
    services.push(service);
    await service.ready;
    await redis.set(keys.redactionSet(), 'v1:garbage-that-will-not-decrypt');
    await redis.incr(keys.redactionVersion());
    await new Promise((r) => setTimeout(r, 200));
    expect(service.redact('good-secret-value-1')).toBe('[REDACTED:GOOD]');
  });

  it('fails `ready` when the stored set does not open with the key', async () => {
    const { make } = connections('redsvc');
    await secretServiceOn(make(), crypto).set('ANY', 'any-secret-value-1');
    const service = createRedactionService({
      redactionSet: createRedactionSetRepository({ redis: make() }),
      crypto: createSecretCrypto(generateSecretsKey()),
    });
    services.push(service);
    await expect(service.ready).rejects.toThrow(/wrong secrets key/);
  });
});
