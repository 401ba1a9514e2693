import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreVersionError } from '../../src/errors/store-errors.js';
import { createMetaRepository } from '../../src/store/meta-repository.js';
import { migrateStore, type Migration } from '../../src/store/migrations.js';
import type { Redis } from '../../src/store/redis.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

const log = pino({ level: 'silent' });
let prefix: string;
let redis: Redis;

beforeEach(() => {
  prefix = uniquePrefix('migrate');
  redis = storeRedis(prefix);
});
afterEach(async () => {
  redis.disconnect();
  await dropPrefix(prefix);
});

function steps(ran: number[], failAt?: number): Migration[] {
  return [2, 3].map((to) => ({
    to,
    description: `step ${to}`,
    async run() {
      if (to === failAt) throw new Error(`step ${to} failed`);
      ran.push(to);
    },
  }));
}

describe('store migrations', () => {
  it('runs every step on data without a version, then records the newest', async () => {
    const ran: number[] = [];
    const meta = createMetaRepository(redis);
    expect(await migrateStore(meta, steps(ran), { release: '9.9.9', log })).toEqual({
      from: 1,
      to: 3,
    });
    expect(ran).toEqual([2, 3]);
    expect(await meta.schemaVersion()).toEqual({ version: 3, writtenBy: '9.9.9' });
    // A second start finds the data current and runs nothing.
    await migrateStore(meta, steps(ran), { release: '9.9.9', log });
    expect(ran).toEqual([2, 3]);
  });

  it('resumes at the step that did not finish', async () => {
    const meta = createMetaRepository(redis);
    const ran: number[] = [];
    await expect(migrateStore(meta, steps(ran, 3), { release: 'x', log })).rejects.toThrow(
      'step 3 failed',
    );
    expect((await meta.schemaVersion()).version).toBe(2);
    await migrateStore(meta, steps(ran), { release: 'x', log });
    expect(ran).toEqual([2, 3]);
  });

  it('runs each step once when replicas start together', async () => {
    const ran: number[] = [];
    const slow: Migration[] = [
      {
        to: 2,
        description: 'slow',
        async run() {
          await new Promise((r) => setTimeout(r, 100));
          ran.push(2);
        },
      },
    ];
    const others = [storeRedis(prefix), storeRedis(prefix), storeRedis(prefix)];
    try {
      await Promise.all(
        others.map((r) => migrateStore(createMetaRepository(r), slow, { release: 'x', log })),
      );
    } finally {
      for (const r of others) r.disconnect();
    }
    expect(ran).toEqual([2]);
  });

  it('refuses data of a newer schema, naming both versions and the release that wrote it', async () => {
    const meta = createMetaRepository(redis);
    await meta.setSchemaVersion(7, '3.0.0');
    const err = await migrateStore(meta, steps([]), { release: '1.0.0', log }).catch((e) => e);
    expect(err).toBeInstanceOf(StoreVersionError);
    expect(err.details).toEqual({ stored: 7, supported: 3 });
    expect(err.message).toContain('schema version 7 (written by Steward 3.0.0)');
    expect(err.message).toContain('up to 3');
  });
});
