import { afterAll, describe, expect, it } from 'vitest';
import { createChatDeliveryRepository } from '../../src/store/chat-delivery-repository.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

describe('chat delivery repository', () => {
  const prefix = uniquePrefix('chat-delivery-repository');
  const redis = storeRedis(prefix);
  const repo = createChatDeliveryRepository(redis);
  afterAll(async () => {
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it('claims each part of a delivery once: claimed, then sent or sending', async () => {
    expect(await repo.claimPart('run1:telegram:1', 0, 60_000)).toBe('claimed');
    expect(await repo.claimPart('run1:telegram:1', 0, 60_000)).toBe('sending');
    await repo.markPartSent('run1:telegram:1', 0);
    expect(await repo.claimPart('run1:telegram:1', 0, 60_000)).toBe('sent');
    expect(await repo.claimPart('run1:telegram:1', 1, 60_000)).toBe('claimed');
    await repo.releasePart('run1:telegram:1', 1);
    expect(await repo.claimPart('run1:telegram:1', 1, 60_000)).toBe('claimed');
  });
});
