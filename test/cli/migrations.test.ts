import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildCore } from '../../src/cli/compose.js';
import { StoreVersionError } from '../../src/errors/store-errors.js';
import { hashSource } from '../../src/contracts/script-hashes.js';
import { parseMetadata } from '../../src/scripts/metadata.js';
import type { ScriptRecord } from '../../src/contracts/script-record.js';
import { legacyApprovalsMarker } from '../../src/secrets/approval-key.js';
import { keys } from '../../src/store/keys.js';
import { createMetaRepository } from '../../src/store/meta-repository.js';
import { createScriptRepository } from '../../src/store/script-repository.js';
import { createTestContext, type TestContext } from '../support/app.js';

/** An approved script as release 1 stored it: no signature, and no schema version anywhere. */
function releaseOneApproval(name: string, source: string): ScriptRecord {
  const hash = hashSource(source);
  return {
    name,
    source,
    hash,
    status: 'approved',
    metadata: parseMetadata(source),
    created_at: '2026-10-01T00:00:00.000Z',
    modified_at: '2026-10-01T00:00:00.000Z',
    head: 'a'.repeat(40),
    approved_at: '2026-10-01T00:00:00.000Z',
    approved_by: 'admin',
    approved_hash: hash,
  };
}

let t: TestContext | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('migrating the data of release 1', () => {
  it('signs its approvals once, records schema version 2, and they verify', async () => {
    t = await createTestContext({}, 'migrate1');
    const store = createScriptRepository(t.ctx.redis);
    await store.commit(releaseOneApproval('old.star', 'def main():\n    return 1\n'));
    // An approval whose stored text no longer matches its hash is not signed.
    const broken = releaseOneApproval('broken.star', 'def main():\n    return 2\n');
    await store.commit({ ...broken, source: 'def main():\n    return 3\n' });

    const core = await buildCore(t.ctx);
    expect((await createMetaRepository(t.ctx.redis).schemaVersion()).version).toBe(2);
    const old = (await store.get('old.star'))!;
    expect(old.approval_sig).toBeDefined();
    expect(core.signer.check(old)).toBeNull();
    expect((await store.get('broken.star'))!.approval_sig).toBeUndefined();
    expect(existsSync(legacyApprovalsMarker(t.ctx.config))).toBe(true);
  });

  it('does not sign a forgery when the schema version is rolled back after the migration', async () => {
    t = await createTestContext({}, 'migrate2');
    await buildCore(t.ctx);
    const store = createScriptRepository(t.ctx.redis);
    // A Redis writer forges an unsigned approval and makes the store look like release 1.
    await store.commit(releaseOneApproval('forged.star', 'def main():\n    return 666\n'));
    await t.ctx.redis.del(keys.schemaVersion());
    const warn = vi.spyOn(t.ctx.log, 'warn');
    const core = await buildCore(t.ctx);
    const forged = (await store.get('forged.star'))!;
    expect(forged.approval_sig).toBeUndefined();
    expect(core.signer.check(forged)).toBe('missing_signature');
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ audit: true, script: 'forged.star', reason: 'already_migrated' }),
      expect.any(String),
    );
  });

  it('refuses to start on data of a newer Steward, naming both schema versions', async () => {
    t = await createTestContext({}, 'migrate3');
    await createMetaRepository(t.ctx.redis).setSchemaVersion(99, '42.0.0');
    const err = await buildCore(t.ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreVersionError);
    expect((err as Error).message).toMatch(/schema version 99 .*42\.0\.0.* up to 2/);
  });
});
