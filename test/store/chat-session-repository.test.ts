import { afterAll, describe, expect, it } from 'vitest';
import { createChatSessionRepository } from '../../src/store/chat-session-repository.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

describe('chat session repository', () => {
  const prefix = uniquePrefix('chat-session-repository');
  const redis = storeRedis(prefix);
  const repo = createChatSessionRepository(redis);
  afterAll(async () => {
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it('remembers the engine session of each chat', async () => {
    expect(await repo.sessionOf('telegram', '1')).toBeNull();
    await repo.setSessionOf('telegram', '1', 'ses_a');
    await repo.setSessionOf('slack', '1', 'ses_b');
    expect(await repo.sessionOf('telegram', '1')).toBe('ses_a');
    expect(await repo.sessionOf('slack', '1')).toBe('ses_b');
  });
});
