import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createSessionRepository,
  type SessionRepository,
} from '../../src/store/session-repository.js';
import { keys } from '../../src/store/keys.js';
import type { Redis } from '../../src/store/redis.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

const prefix = uniquePrefix('sessions');
let redis: Redis;
let store: SessionRepository;
beforeAll(() => {
  redis = storeRedis(prefix);
  store = createSessionRepository(redis, { ttlMs: 60_000, graceMs: 30_000 });
});
afterAll(async () => {
  redis.disconnect();
  await dropPrefix(prefix);
});

it('rotates the current token, re-issues the current id for the previous one, revokes on reuse', async () => {
  await store.create('s1', 'admin', 'j0');
  const ttl = await redis.pttl(keys.authSession('s1'));
  expect(ttl).toBeGreaterThan(50_000);
  expect(await store.redeem('s1', 'admin', 'j0', 'j1')).toEqual({ kind: 'rotated', jti: 'j1' });
  // j0 is the previous token, within its grace: no rotation, the current id comes back.
  expect(await store.redeem('s1', 'admin', 'j0', 'jx')).toEqual({ kind: 'grace', jti: 'j1' });
  expect(await store.redeem('s1', 'admin', 'j1', 'j2')).toEqual({ kind: 'rotated', jti: 'j2' });
  // j0 is now two rotations old: reuse, and the whole session goes.
  expect(await store.redeem('s1', 'admin', 'j0', 'jy')).toEqual({ kind: 'reused' });
  expect(await redis.exists(keys.authSession('s1'))).toBe(0);
  expect(await store.redeem('s1', 'admin', 'j2', 'j3')).toEqual({ kind: 'unknown' });
});

it('refuses a token naming another user, and forgets revoked sessions', async () => {
  await store.create('s2', 'admin', 'k0');
  expect(await store.redeem('s2', 'mallory', 'k0', 'k1')).toEqual({ kind: 'unknown' });
  expect(await store.revoke('s2')).toBe(true);
  expect(await store.revoke('s2')).toBe(false);
  expect(await store.redeem('s2', 'admin', 'k0', 'k1')).toEqual({ kind: 'unknown' });
});

it('lets exactly one of two concurrent redemptions of the current token rotate', async () => {
  await store.create('s3', 'admin', 'm0');
  const [a, b] = await Promise.all([
    store.redeem('s3', 'admin', 'm0', 'ma'),
    store.redeem('s3', 'admin', 'm0', 'mb'),
  ]);
  const kinds = [a.kind, b.kind].sort();
  expect(kinds).toEqual(['grace', 'rotated']);
  // Both callers end up holding the one current id.
  expect(a.kind === 'rotated' ? a : b).toEqual({ kind: 'rotated', jti: expect.any(String) });
  const current = await redis.hget(keys.authSession('s3'), 'current');
  expect([a, b].map((r) => (r.kind === 'reused' || r.kind === 'unknown' ? null : r.jti))).toEqual([
    current,
    current,
  ]);
});
