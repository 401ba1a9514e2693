import { afterAll, describe, expect, it } from 'vitest';
import { createAdminRepository } from '../../src/store/admin-repository.js';
import { keys } from '../../src/store/keys.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

describe('admin repository', () => {
  const prefix = uniquePrefix('admin-repo');
  const redis = storeRedis(prefix);
  const admins = createAdminRepository(redis);
  afterAll(async () => {
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it('has no admin until one is created, then reads it back', async () => {
    expect(await admins.exists()).toBe(false);
    expect(await admins.get()).toBeNull();
    expect(await admins.create({ username: 'root', passwordHash: 'hash-1' })).toBe(true);
    expect(await admins.exists()).toBe(true);
    expect(await admins.get()).toEqual({ username: 'root', passwordHash: 'hash-1' });
    const stored = await redis.hgetall(keys.adminUser());
    expect(stored).toMatchObject({ username: 'root', password_hash: 'hash-1', role: 'admin' });
    expect(Number.isNaN(Date.parse(stored.created_at ?? ''))).toBe(false);
  });

  it('creates exactly one admin when several creations race', async () => {
    const racePrefix = uniquePrefix('admin-race');
    const connections = Array.from({ length: 5 }, () => storeRedis(racePrefix));
    try {
      const results = await Promise.all(
        connections.map((c, i) =>
          createAdminRepository(c).create({ username: `admin${i}`, passwordHash: `h${i}` }),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect(await createAdminRepository(connections[0]!).get()).toEqual({
        username: `admin${winner}`,
        passwordHash: `h${winner}`,
      });
    } finally {
      for (const c of connections) c.disconnect();
      await dropPrefix(racePrefix);
    }
  });

  it('reads an incomplete record as no admin', async () => {
    const other = uniquePrefix('admin-partial');
    const conn = storeRedis(other);
    try {
      await conn.hset(keys.adminUser(), { username: 'half' });
      expect(await createAdminRepository(conn).get()).toBeNull();
      expect(await createAdminRepository(conn).exists()).toBe(true);
    } finally {
      conn.disconnect();
      await dropPrefix(other);
    }
  });
});
