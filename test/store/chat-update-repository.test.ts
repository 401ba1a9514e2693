import { afterAll, describe, expect, it } from 'vitest';
import {
  createChatUpdateClaims,
  createChatUpdateQueue,
  createChatUpdateReader,
} from '../../src/store/chat-update-repository.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

describe('chat update repository', () => {
  const prefix = uniquePrefix('chat-update-repository');
  const redis = storeRedis(prefix);
  const repo = createChatUpdateClaims(redis);
  afterAll(async () => {
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it('claims each update once', async () => {
    expect(await repo.claimUpdate('telegram', '1:100', 60_000)).toBe(true);
    expect(await repo.claimUpdate('telegram', '1:100', 60_000)).toBe(false);
    expect(await repo.claimUpdate('telegram', '1:101', 60_000)).toBe(true);
  });

  it('hands queued webhook updates to the reader in order', async () => {
    const queue = createChatUpdateQueue(redis);
    const reader = createChatUpdateReader(storeRedis(prefix));
    try {
      await queue.push('telegram', '{"update_id":1}');
      await queue.push('telegram', '{"update_id":2}');
      expect(await reader.take('telegram', 1)).toBe('{"update_id":1}');
      expect(await reader.take('telegram', 1)).toBe('{"update_id":2}');
    } finally {
      reader.close();
    }
  });
});
