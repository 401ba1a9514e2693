import { afterAll, describe, expect, it } from 'vitest';
import { createChatLeaseRepository } from '../../src/store/chat-lease-repository.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

describe('chat lease repository', () => {
  const prefix = uniquePrefix('chat-lease-repository');
  const redis = storeRedis(prefix);
  const repo = createChatLeaseRepository(redis);
  afterAll(async () => {
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it('gives the lease to one owner at a time, renewable, released only by its holder', async () => {
    expect(await repo.holdLease('a', 500)).toBe(true);
    expect(await repo.holdLease('b', 500)).toBe(false);
    expect(await repo.holdLease('a', 500)).toBe(true);
    await repo.releaseLease('b');
    expect(await repo.holdLease('b', 500)).toBe(false);
    await new Promise((r) => setTimeout(r, 650));
    // A holder that stopped renewing loses the lease when it expires.
    expect(await repo.holdLease('b', 500)).toBe(true);
    await repo.releaseLease('b');
    expect(await repo.holdLease('a', 500)).toBe(true);
    await repo.releaseLease('a');
  });
});
