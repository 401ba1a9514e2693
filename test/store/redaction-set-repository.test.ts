import { afterAll, describe, expect, it } from 'vitest';
import { createSecretCrypto, generateSecretsKey } from '../../src/secrets/crypto.js';
import { openRedactionSet } from '../../src/secrets/redaction-set.js';
import { keys } from '../../src/store/keys.js';
import { createRedactionSetRepository } from '../../src/store/redaction-set-repository.js';
import { createRedis, type Redis } from '../../src/store/redis.js';
import { dropPrefix, storeRedis, testRedisUrl, uniquePrefix } from '../support/redis.js';
import { secretServiceOn } from '../support/secrets.js';

const crypto = createSecretCrypto(generateSecretsKey());

async function within(ms: number, check: () => boolean): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('redaction set repository', () => {
  const prefix = uniquePrefix('redset-repo');
  const open: Redis[] = [];
  const connect = () => {
    const redis = storeRedis(prefix);
    open.push(redis);
    return redis;
  };
  afterAll(async () => {
    for (const redis of open) redis.disconnect();
    await dropPrefix(prefix);
  });

  it('reads version 0 and no set before any secret, then the set each write seals', async () => {
    const repository = createRedactionSetRepository({ redis: connect() });
    expect(await repository.read()).toEqual({ version: 0, blob: null });
    expect(await repository.version()).toBe(0);
    await secretServiceOn(connect(), crypto).set('ONE', 'first-secret-value-1');
    const stored = await repository.read();
    expect(stored?.version).toBe(1);
    expect(await repository.version()).toBe(1);
    expect(openRedactionSet(stored?.blob as string, crypto)).toEqual([
      { name: 'ONE', value: 'first-secret-value-1' },
    ]);
  });

  it('reports every published change and every subscriber (re)connect', async () => {
    const repository = createRedactionSetRepository({
      redis: connect(),
      subscriberFactory: () => createRedis({ url: testRedisUrl(), prefix }, 'subscriber'),
    });
    let changes = 0;
    const errors: Error[] = [];
    const watch = repository.watch(
      () => changes++,
      (err) => errors.push(err),
    );
    try {
      await watch.ready;
      // The subscriber's own 'ready' counts as a change (a reconnect may have missed one).
      await within(1000, () => changes >= 1);
      const before = changes;
      await secretServiceOn(connect(), crypto).set('TWO', 'second-secret-value-2');
      await within(1000, () => changes > before);
      expect(errors).toEqual([]);
    } finally {
      watch.close();
    }
  });

  it('watches nothing without a subscriber factory', async () => {
    const watch = createRedactionSetRepository({ redis: connect() }).watch(
      () => {
        throw new Error('no change expected');
      },
      () => {},
    );
    await watch.ready;
    watch.close();
    expect(await connect().get(keys.redactionVersion())).toBe('2');
  });
});
