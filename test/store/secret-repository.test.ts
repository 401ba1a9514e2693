import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/catalogue.js';
import { createSecretCrypto, generateSecretsKey } from '../../src/secrets/crypto.js';
import { SecretDecryptError } from '../../src/errors/secrets-errors.js';
import { openRedactionSet } from '../../src/secrets/redaction-set.js';
import { keys } from '../../src/store/keys.js';
import type { Redis } from '../../src/store/redis.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';
import { secretServiceOn } from '../support/secrets.js';

const VALUES = {
  GITHUB_TOKEN: 'ghp_R3allyS3cretT0kenValue0123456789',
  DB_PASSWORD: 'correct horse battery staple ünïcode',
  MULTI_LINE: '-----BEGIN KEY-----\nAAAAB3NzaC1yc2EAAAADAQABAAABAQ\n-----END KEY-----',
};

describe('secret repository (through the secret service)', () => {
  const prefix = uniquePrefix('secrets');
  let redis: Redis;
  const crypto = createSecretCrypto(generateSecretsKey());
  const clock = { now: new Date('2025-03-01T10:00:00.000Z') };
  let store: ReturnType<typeof secretServiceOn>;

  beforeAll(() => {
    redis = storeRedis(prefix);
    store = secretServiceOn(redis, crypto, () => clock.now);
  });
  afterAll(async () => {
    await dropPrefix(prefix);
    redis.disconnect();
  });

  it('lists declared names that were never set', async () => {
    expect(await store.list(['ZETA', 'ALPHA'])).toEqual([
      { name: 'ALPHA', set: false, last_updated: null },
      { name: 'ZETA', set: false, last_updated: null },
    ]);
    expect(await store.counts(['ZETA', 'ALPHA'])).toEqual({ total: 2, configured: 0 });
  });

  it('sets, reads back and lists values', async () => {
    for (const [name, value] of Object.entries(VALUES)) {
      expect(await store.set(name, value)).toEqual({ name, set: true });
    }
    expect(await store.get('GITHUB_TOKEN')).toBe(VALUES.GITHUB_TOKEN);
    expect(await store.get('DB_PASSWORD')).toBe(VALUES.DB_PASSWORD);
    expect(await store.get('NOPE')).toBeNull();
    expect(await store.names()).toEqual(['DB_PASSWORD', 'GITHUB_TOKEN', 'MULTI_LINE']);
    const listed = await store.list(['GITHUB_TOKEN', 'UNSET_ONE']);
    expect(listed.map((s) => [s.name, s.set, s.last_updated])).toEqual([
      ['DB_PASSWORD', true, '2025-03-01T10:00:00.000Z'],
      ['GITHUB_TOKEN', true, '2025-03-01T10:00:00.000Z'],
      ['MULTI_LINE', true, '2025-03-01T10:00:00.000Z'],
      ['UNSET_ONE', false, null],
    ]);
    expect(await store.counts(['GITHUB_TOKEN', 'UNSET_ONE'])).toEqual({ total: 4, configured: 3 });
  });

  it('updates last_updated on overwrite and bumps the version on each change', async () => {
    const before = Number(await redis.get(keys.redactionVersion()));
    clock.now = new Date('2025-03-02T11:00:00.000Z');
    await store.set('GITHUB_TOKEN', `${VALUES.GITHUB_TOKEN}-v2`);
    await store.set('GITHUB_TOKEN', VALUES.GITHUB_TOKEN);
    expect(Number(await redis.get(keys.redactionVersion()))).toBe(before + 2);
    const entry = (await store.list([])).find((s) => s.name === 'GITHUB_TOKEN');
    expect(entry?.last_updated).toBe('2025-03-02T11:00:00.000Z');
  });

  it('keeps the encrypted redaction set equal to the stored values', async () => {
    const blob = await redis.get(keys.redactionSet());
    expect(openRedactionSet(blob as string, crypto)).toEqual(
      Object.entries(VALUES)
        .map(([name, value]) => ({ name, value }))
        .sort((a, b) => (a.name < b.name ? -1 : 1)),
    );
  });

  it('warns about short values but stores them', async () => {
    const result = await store.set('PIN', '1234');
    expect(result.warning).toMatch(/too short to redact reliably/);
    expect(result.warning).not.toContain('1234');
    expect(await store.get('PIN')).toBe('1234');
    expect(await store.delete('PIN')).toBe(true);
  });

  it('refuses bad names and values without echoing the value', async () => {
    for (const name of ['', '1ABC', 'has-dash', 'a'.repeat(129), 'sp ace']) {
      await expect(store.set(name, 'some-long-value')).rejects.toBeInstanceOf(AppError);
    }
    await expect(store.set('EMPTY', '')).rejects.toThrow(/empty/);
    const huge = 'x'.repeat(64 * 1024 + 1);
    const err = await store.set('HUGE', huge).catch((e: unknown) => e as AppError);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('invalid_request');
    expect((err as AppError).message.length).toBeLessThan(200);
    await expect(store.set('EXACT', 'é'.repeat(32 * 1024))).resolves.toMatchObject({ set: true });
    await store.delete('EXACT');
  });

  it('deletes, returning false for unknown names', async () => {
    await store.set('TEMP', 'temporary-value-123');
    expect(await store.delete('TEMP')).toBe(true);
    expect(await store.delete('TEMP')).toBe(false);
    expect(await store.delete('bad-name')).toBe(false);
    expect(await store.get('TEMP')).toBeNull();
    expect(await store.names()).not.toContain('TEMP');
  });

  it('serialises concurrent writers without losing one', async () => {
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => store.set(`CONC_${i}`, `concurrent-value-${i}`)),
    );
    const set = openRedactionSet((await redis.get(keys.redactionSet())) as string, crypto);
    for (let i = 0; i < 12; i++)
      expect(set.find((e) => e.name === `CONC_${i}`)?.value).toBe(`concurrent-value-${i}`);
    await Promise.all(Array.from({ length: 12 }, (_, i) => store.delete(`CONC_${i}`)));
  });

  it('a ciphertext copied to another name does not decrypt', async () => {
    const blob = await redis.get(keys.secret('GITHUB_TOKEN'));
    await redis.set(keys.secret('COPIED'), blob as string);
    await redis.hset(keys.secretIndex(), 'COPIED', new Date().toISOString());
    await expect(store.get('COPIED')).rejects.toBeInstanceOf(SecretDecryptError);
    await redis.del(keys.secret('COPIED'));
    await redis.hdel(keys.secretIndex(), 'COPIED');
  });

  it('leaves no plaintext value, nor its base64 or hex, anywhere under the prefix', async () => {
    const raw = storeRedis('');
    try {
      const found: string[] = [];
      let cursor = '0';
      do {
        const [next, batch] = await raw.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        cursor = next;
        found.push(...batch);
      } while (cursor !== '0');
      expect(found.length).toBeGreaterThan(4);
      const texts: string[] = [];
      const types = new Set<string>();
      for (const key of found) {
        const type = await raw.type(key);
        types.add(type);
        texts.push(key);
        if (type === 'string') texts.push((await raw.get(key)) ?? '');
        else if (type === 'hash') texts.push(...Object.entries(await raw.hgetall(key)).flat());
        else if (type === 'list') texts.push(...(await raw.lrange(key, 0, -1)));
        else if (type === 'set') texts.push(...(await raw.smembers(key)));
        else if (type === 'zset') texts.push(...(await raw.zrange(key, 0, -1)));
        else if (type === 'stream') texts.push(JSON.stringify(await raw.xrange(key, '-', '+')));
        else throw new Error(`unexpected key type ${type} at ${key}`);
      }
      const haystack = texts.join('\n');
      for (const value of [...Object.values(VALUES), ...VALUES.MULTI_LINE.split('\n')]) {
        const bytes = Buffer.from(value);
        for (const form of [
          value,
          bytes.toString('base64').replace(/=+$/, ''),
          bytes.toString('base64url'),
          bytes.toString('hex'),
          bytes.toString('hex').toUpperCase(),
        ]) {
          expect(haystack.includes(form), `found a form of a secret value in Redis`).toBe(false);
        }
      }
    } finally {
      raw.disconnect();
    }
  });
});
