import { afterAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../src/store/redis.js';
import { createRunReplies, createRunReplyReader } from '../../src/store/run-reply-repository.js';
import { dropPrefix, storeRedis, testRedisUrl, uniquePrefix } from '../support/redis.js';

describe('run reply repository', () => {
  const prefix = uniquePrefix('run-replies');
  const redis = storeRedis(prefix);
  const reader = createRunReplyReader(
    createRedis({ url: testRedisUrl(), prefix }, 'store', { enableAutoPipelining: false }),
    'abc',
  );
  afterAll(async () => {
    reader.close();
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it('keeps answers until their process reads them, all queued answers in one read', async () => {
    const replies = createRunReplies(redis);
    await replies.send('abc', 'one');
    await replies.send('abc', 'two');
    await replies.send('other', 'not ours');
    expect(await reader.take(1)).toEqual(['one', 'two']);
    expect(await reader.take(0.1)).toEqual([]);
    // An unread list expires on its own (its process is gone).
    expect(await redis.pttl('run-replies:other')).toBeGreaterThan(0);
  });
});
