import { afterAll, describe, expect, it } from 'vitest';
import { createChatIdentityRepository } from '../../src/store/chat-identity-repository.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

describe('chat identity repository', () => {
  const prefix = uniquePrefix('chat-identity-repository');
  const redis = storeRedis(prefix);
  const repo = createChatIdentityRepository(redis);
  afterAll(async () => {
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it('keeps one identity per provider and user', async () => {
    const person = {
      provider: 'telegram',
      user_id: '5',
      chat_id: '5',
      name: 'five',
      approved_at: new Date().toISOString(),
    };
    expect(await repo.identity('telegram', '5')).toBeNull();
    await repo.approveIdentity(person);
    await repo.approveIdentity({ ...person, name: 'five again' });
    expect(await repo.identity('telegram', '5')).toEqual({ ...person, name: 'five again' });
    expect(await repo.identity('slack', '5')).toBeNull();
    expect(await repo.identities()).toHaveLength(1);
  });
});
