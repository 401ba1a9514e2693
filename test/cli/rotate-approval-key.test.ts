import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { buildCore } from '../../src/cli/compose.js';
import { rotateApprovalKey } from '../../src/cli/rotate-approval-key.js';
import { createApprovalSigner } from '../../src/scripts/approval-signature.js';
import { approvalKeyFile, stagedApprovalKeyFile } from '../../src/secrets/approval-key.js';
import { createScriptRepository } from '../../src/store/script-repository.js';
import { createTestContext, type TestContext } from '../support/app.js';

let t: TestContext | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function deployment() {
  t = await createTestContext({}, 'rotate');
  const core = await buildCore(t.ctx);
  await core.scripts.create('a.star', 'def main():\n    return 1\n', 'admin');
  await core.scripts.approve('a.star', 'admin');
  await core.scripts.create('b.star', 'def main():\n    return 2\n', 'admin');
  await core.scripts.approve('b.star', 'admin');
  return { t, core, store: createScriptRepository(t.ctx.redis) };
}

describe('steward approvals rotate-key', () => {
  it('re-signs every valid approval with a new key that replaces the key file', async () => {
    const { t, store } = await deployment();
    // One approval that does not verify stays unverified.
    await t.ctx.redis.hdel(`script:b.star`, 'approval_sig');
    const oldKey = readFileSync(approvalKeyFile(t.ctx.config), 'utf8');
    const result = await rotateApprovalKey(t.ctx, () => {});
    expect(result).toMatchObject({ resigned: ['a.star'], unverified: ['b.star'] });
    const newKey = readFileSync(approvalKeyFile(t.ctx.config), 'utf8');
    expect(newKey).not.toBe(oldKey);
    const after = await buildCore(t.ctx);
    expect(after.signer.check((await store.get('a.star'))!)).toBeNull();
    expect(after.signer.check((await store.get('b.star'))!)).toBe('missing_signature');
    const old = createApprovalSigner([Buffer.from(oldKey.trim(), 'base64')]);
    expect(old.check((await store.get('a.star'))!)).toBe('bad_signature');
  });

  it('a start finishes a rotation that stopped after staging its key', async () => {
    const { t, store } = await deployment();
    const staged = Buffer.alloc(32, 9);
    writeFileSync(stagedApprovalKeyFile(t.ctx.config), `${staged.toString('base64')}\n`);
    const core = await buildCore(t.ctx);
    expect(readFileSync(approvalKeyFile(t.ctx.config), 'utf8').trim()).toBe(
      staged.toString('base64'),
    );
    const signer = createApprovalSigner([staged]);
    expect(signer.check((await store.get('a.star'))!)).toBeNull();
    expect(core.signer.check((await store.get('b.star'))!)).toBeNull();
  });

  it('prints the new key when the key comes from the environment', async () => {
    t = await createTestContext(
      { 'secrets.approval_key': Buffer.alloc(32, 3).toString('base64') },
      'rotateenv',
    );
    const core = await buildCore(t.ctx);
    await core.scripts.create('a.star', 'def main():\n    return 1\n', 'admin');
    await core.scripts.approve('a.star', 'admin');
    let printed = '';
    const result = await rotateApprovalKey(t.ctx, (text) => (printed += text));
    expect(result.file).toBeNull();
    const line = printed.trim().split('\n').at(-1)!;
    const signer = createApprovalSigner([Buffer.from(line, 'base64')]);
    expect(signer.check((await createScriptRepository(t.ctx.redis).get('a.star'))!)).toBeNull();
    expect(printed).toContain('STEWARD_APPROVAL_KEY');
  });
});
