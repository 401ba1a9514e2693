import { afterAll, describe, expect, it } from 'vitest';
import {
  createChatApprovalRepository,
  type StoredApproval,
} from '../../src/store/chat-approval-repository.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

describe('chat approval repository', () => {
  const prefix = uniquePrefix('chat-approval-repository');
  const redis = storeRedis(prefix);
  const repo = createChatApprovalRepository(redis);
  afterAll(async () => {
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it('closes an approval request with a decision only while it has not expired', async () => {
    const at = Date.now();
    const request: StoredApproval = {
      id: 'req1',
      script: 'a.star',
      hash: 'sha256:00',
      provider: 'telegram',
      chat_id: '1',
      message_id: '9',
      text: 'Review a.star',
      approver_id: '1',
      created_at: new Date(at).toISOString(),
      expires_at: at + 1000,
      state: 'open',
      approvable: true,
    };
    await repo.openApproval(request, 60_000);
    // A decision at or after expires_at finds nothing to close; the sweep still can.
    expect(await repo.closeApproval(request, 'approved', at + 1000)).toBeNull();
    expect((await repo.approval('req1'))?.state).toBe('open');
    expect((await repo.closeApproval(request, 'approved', at + 999))?.state).toBe('open');
    expect((await repo.approval('req1'))?.state).toBe('approved');
    expect(await repo.closeApproval(request, 'expired')).toBeNull();
  });

  it('keeps one open request per script and routes a reason reply to its request', async () => {
    const at = Date.now();
    const base: StoredApproval = {
      id: 'r1',
      script: 'b.star',
      hash: 'sha256:01',
      provider: 'telegram',
      chat_id: '1',
      message_id: '',
      text: 'Review b.star',
      approver_id: '1',
      created_at: new Date(at).toISOString(),
      expires_at: at + 60_000,
      state: 'open',
    };
    expect(await repo.claimAnnouncement('b.star', 'c1', 60_000)).toBe(true);
    expect(await repo.claimAnnouncement('b.star', 'c1', 60_000)).toBe(false);
    expect(await repo.openApproval(base, 60_000)).toBeNull();
    await repo.setApprovalMessage('r1', '42');
    expect((await repo.approval('r1'))?.message_id).toBe('42');
    // A newer version's request replaces it as the script's open one.
    expect(await repo.openApproval({ ...base, id: 'r2' }, 60_000)).toBe('r1');
    expect(await repo.openApprovalOf('b.star')).toBe('r2');
    expect((await repo.openApprovals()).map((r) => r.id)).toContain('r2');
    const waiting = await repo.awaitReason({ ...base, id: 'r2' }, '77');
    expect(waiting?.state).toBe('awaiting_reason');
    expect(await repo.approvalAnswering('telegram', '1', '77')).toBe('r2');
    expect(await repo.approvalAnswering('telegram', '1', '78')).toBeNull();
    expect((await repo.closeApproval({ id: 'r2', script: 'b.star' }, 'rejected'))?.id).toBe('r2');
    expect(await repo.openApprovalOf('b.star')).toBeNull();
  });
});
