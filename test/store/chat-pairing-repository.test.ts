import { afterAll, describe, expect, it } from 'vitest';
import {
  createChatPairingRepository,
  type StoredPairing,
} from '../../src/store/chat-pairing-repository.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

const pairing = (code: string, user: string, expiresIn = 60_000): StoredPairing => ({
  code,
  identity: `telegram:${user}`,
  provider: 'telegram',
  user_id: user,
  chat_id: user,
  name: `user ${user}`,
  created_at: new Date().toISOString(),
  expires_at: Date.now() + expiresIn,
});

describe('chat pairing repository', () => {
  const prefix = uniquePrefix('chat-pairing-repository');
  const redis = storeRedis(prefix);
  const repo = createChatPairingRepository(redis);
  afterAll(async () => {
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it('keeps one pending code per identity, and drops the oldest of a provider past the limit', async () => {
    // Expiry times apart by a few ms: which is oldest must not depend on the clock's tick.
    expect(await repo.requestPairing(pairing('AAAAAAAA', '1', 59_990), 3)).toEqual({
      code: 'AAAAAAAA',
      created: true,
    });
    // The same person asking again gets the same code.
    expect(await repo.requestPairing(pairing('BBBBBBBB', '1'), 3)).toEqual({
      code: 'AAAAAAAA',
      created: false,
    });
    expect((await repo.requestPairing(pairing('CCCCCCCC', '2', 59_995), 3))?.created).toBe(true);
    expect((await repo.requestPairing(pairing('DDDDDDDD', '3'), 3))?.created).toBe(true);
    // Another provider's requests count apart.
    const slack = { ...pairing('SSSSSSSS', 'U1'), identity: 'slack:U1', provider: 'slack' };
    expect(await repo.requestPairing(slack, 3)).toEqual({ code: 'SSSSSSSS', created: true });
    // A fourth Telegram stranger: the oldest Telegram request makes room.
    expect(await repo.requestPairing(pairing('EEEEEEEE', '4', 60_001), 3)).toEqual({
      code: 'EEEEEEEE',
      created: true,
      evicted: 'AAAAAAAA',
    });
    expect((await repo.pendingPairings(Date.now())).map((p) => p.code).sort()).toEqual([
      'CCCCCCCC',
      'DDDDDDDD',
      'EEEEEEEE',
      'SSSSSSSS',
    ]);
    expect(await repo.takePairing('AAAAAAAA', Date.now())).toBeNull();
    // Taking decides once.
    expect((await repo.takePairing('CCCCCCCC', Date.now()))?.user_id).toBe('2');
    expect(await repo.takePairing('CCCCCCCC', Date.now())).toBeNull();
    // A free place again: nothing is dropped.
    expect(await repo.requestPairing(pairing('FFFFFFFF', '5', 60_002), 3)).toEqual({
      code: 'FFFFFFFF',
      created: true,
    });
  });

  it('drops expired requests: they neither count nor can be taken', async () => {
    const other = createChatPairingRepository(storeRedis(`${prefix}x:`));
    expect((await other.requestPairing(pairing('FFFFFFFF', '5', 100), 1))?.created).toBe(true);
    await new Promise((r) => setTimeout(r, 150));
    expect(await other.takePairing('FFFFFFFF', Date.now())).toBeNull();
    expect(await other.requestPairing(pairing('GGGGGGGG', '6'), 1)).toEqual({
      code: 'GGGGGGGG',
      created: true,
    });
    await dropPrefix(`${prefix}x:`);
  });

  it('lets a stranger be answered once per window', async () => {
    expect(await repo.claimStrangerAnswer('telegram', '9', 300)).toBe(true);
    expect(await repo.claimStrangerAnswer('telegram', '9', 300)).toBe(false);
    expect(await repo.claimStrangerAnswer('slack', '9', 300)).toBe(true);
    await new Promise((r) => setTimeout(r, 400));
    expect(await repo.claimStrangerAnswer('telegram', '9', 300)).toBe(true);
  });
});
