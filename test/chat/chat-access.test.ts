import { afterAll, describe, expect, it } from 'vitest';
import { createChatAccess, PAIRING_CODE_LENGTH } from '../../src/chat/chat-access.js';
import type { InboundMessage } from '../../src/chat/provider.js';
import { NotFoundError } from '../../src/errors/request-errors.js';
import { createChatIdentityRepository } from '../../src/store/chat-identity-repository.js';
import { createChatPairingRepository } from '../../src/store/chat-pairing-repository.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';
import { memoryTrail } from '../support/trail.js';

const from = (userId: string, chatId = userId): InboundMessage => ({
  provider: 'telegram',
  chatId,
  userId,
  userName: `user ${userId}`,
  text: 'hello',
});

describe('chat access (real Redis)', () => {
  const prefix = uniquePrefix('chat-access');
  const redis = storeRedis(prefix);
  const trail = memoryTrail();
  const access = createChatAccess({
    pairings: createChatPairingRepository(redis),
    identities: createChatIdentityRepository(redis),
    allow: { telegram: ['100'] },
    channels: { slack: ['C1'] },
    trail,
  });
  afterAll(async () => {
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it('denies by default and allows the configured users', async () => {
    expect(await access.allowed('telegram', '100')).toBe(true);
    expect(await access.allowed('telegram', '200')).toBe(false);
    // An allow-list is per provider: the same id elsewhere is a stranger.
    expect(await access.allowed('slack', '100')).toBe(false);
  });

  it('gives a stranger one code, recorded once, and allows them once it is approved', async () => {
    const first = await access.requestPairing(from('200'));
    expect(first.created).toBe(true);
    expect(first.code).toHaveLength(PAIRING_CODE_LENGTH);
    expect(await access.requestPairing(from('200'))).toEqual({ code: first.code, created: false });
    expect(trail.events.filter((e) => e.action === 'chat.pairing.request')).toEqual([
      expect.objectContaining({ target: first.code }),
    ]);
    expect((await access.pairings()).map((p) => p.code)).toEqual([first.code]);

    const identity = await access.approve(first.code.toLowerCase());
    expect(identity).toMatchObject({ provider: 'telegram', user_id: '200', chat_id: '200' });
    expect(await access.allowed('telegram', '200')).toBe(true);
    // A code decides once.
    await expect(access.approve(first.code)).rejects.toBeInstanceOf(NotFoundError);
    expect(await access.pairings()).toEqual([]);
  });

  it('denies a request without allowing its sender', async () => {
    const { code } = await access.requestPairing(from('300'));
    expect((await access.deny(code)).user_id).toBe('300');
    expect(await access.allowed('telegram', '300')).toBe(false);
    await expect(access.deny(code)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('answers a stranger once a window', async () => {
    expect(await access.mayAnswerStranger('telegram', '400')).toBe(true);
    expect(await access.mayAnswerStranger('telegram', '400')).toBe(false);
    expect(await access.mayAnswerStranger('telegram', '401')).toBe(true);
  });

  it('reaches allowed private chats, paired chats and configured channels only', async () => {
    expect(await access.reachable('telegram', '100')).toBe(true);
    expect(await access.reachable('telegram', '200')).toBe(true);
    expect(await access.reachable('slack', 'C1')).toBe(true);
    expect(await access.reachable('telegram', '300')).toBe(false);
    expect(await access.reachable('slack', 'C2')).toBe(false);
  });
});
