import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { BackupContents } from '../../src/backup/open-backup.js';
import { restoreBackup } from '../../src/backup/restore-backup.js';
import { createApprovalSigner } from '../../src/scripts/approval-signature.js';
import { encodeScript } from '../../src/contracts/script-record.js';
import { createBackupRepository } from '../../src/store/backup-repository.js';
import { keys } from '../../src/store/keys.js';
import type { Redis } from '../../src/store/redis.js';
import { createScriptRepository } from '../../src/store/script-repository.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';
import { approvedRecord } from '../support/script-record.js';

const signer = createApprovalSigner([randomBytes(32)]);
const source = 'def main():\n    return 1\n';

function contents(overrides: Partial<BackupContents> = {}): BackupContents {
  const script = approvedRecord('a.star', source);
  const { name, approved_hash, approved_by, approved_at } = script;
  return {
    header: {
      format: 'steward-backup',
      format_version: 1,
      schema_version: 2,
      data_written_by: '0.1.0',
      release: '0.1.0',
      taken_at: '2026-05-01T03:15:00.000Z',
      prefix: 'steward:',
      secrets_key: 'v1:x',
      records: 3,
      audit: { entries: 0, head: '', anchor: '' },
    },
    records: [
      {
        key: keys.script('a.star'),
        type: 'hash',
        expire_at_ms: null,
        value: Object.entries(encodeScript(script)),
      },
      { key: keys.scriptIndex(), type: 'set', expire_at_ms: null, value: ['a.star'] },
      // A review request that expired since the backup.
      { key: keys.chatApproval('old'), type: 'string', expire_at_ms: 1000, value: '{}' },
    ],
    approvals: [
      {
        name: name,
        approved_hash: approved_hash!,
        approved_by: approved_by!,
        approved_at: approved_at!,
      },
    ],
    audit: [],
    ...overrides,
  };
}

describe('restoreBackup', () => {
  const redises: Redis[] = [];
  const prefixes: string[] = [];
  const open = () => {
    const prefix = uniquePrefix('restore');
    prefixes.push(prefix);
    const redis = storeRedis(prefix);
    redises.push(redis);
    return redis;
  };
  afterEach(async () => {
    for (const p of prefixes.splice(0)) await dropPrefix(p);
  });
  afterAll(() => redises.forEach((r) => r.disconnect()));

  const deps = (redis: Redis) => ({
    repo: createBackupRepository(redis),
    signer,
    approvalKeyCheck: 'v1:here',
    schemaVersion: 2,
  });

  it('goes into a store that was only ever started, signs what was vouched for, skips what expired', async () => {
    const redis = open();
    // What a first start writes before anyone did anything.
    await redis.set(keys.secretsKeyCheck(), 'v1:x');
    await redis.set(keys.schemaVersion(), '2');
    await redis.hincrby(keys.executionStats(), 'total', 0);
    const report = await restoreBackup(deps(redis), contents(), { force: false });
    expect(report).toMatchObject({ resigned: ['a.star'], unverified: [], expired: 1, records: 2 });
    const record = await createScriptRepository(redis).get('a.star');
    expect(signer.check(record!)).toBeNull();
    expect(await redis.exists(keys.chatApproval('old'))).toBe(0);
    expect(await redis.get(keys.approvalKeyCheck())).toBe('v1:here');
  });

  it('restores an approval it was not vouched for as it was', async () => {
    const redis = open();
    const report = await restoreBackup(deps(redis), contents({ approvals: [] }), {
      force: false,
    });
    expect(report.unverified).toEqual(['a.star']);
    const record = await createScriptRepository(redis).get('a.star');
    expect(signer.check(record!)).toBe('bad_signature');
  });

  it('refuses a store with data, unless forced; forced, it leaves nothing of the old data', async () => {
    const redis = open();
    await redis.hset(keys.adminUser(), { username: 'someone', password_hash: 'x' });
    await redis.set(keys.authSession('old-login'), 'someone');
    await redis.set('bull:script-runs:id', '1');
    await expect(restoreBackup(deps(redis), contents(), { force: false })).rejects.toMatchObject({
      details: { reason: 'not_empty' },
      message: expect.stringMatching(/an administrator account/),
    });
    expect(await redis.exists(keys.script('a.star'))).toBe(0);
    const report = await restoreBackup(deps(redis), contents(), { force: true });
    expect(report.replaced).toBe(3);
    expect(await redis.exists(keys.adminUser(), keys.authSession('old-login'))).toBe(0);
    // BullMQ's state is BullMQ's.
    expect(await redis.exists('bull:script-runs:id')).toBe(1);
  });
});
