import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApprovalKeyError } from '../../src/errors/secrets-errors.js';
import type { Logger } from '../../src/log/logger.js';
import {
  approvalKeyFile,
  approvalKeyFingerprint,
  openApprovalKey,
} from '../../src/secrets/approval-key.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(approvalKey?: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'approval-key-'));
  dirs.push(dir);
  const config = {
    paths: { data: path.join(dir, 'data') } as never,
    secrets: approvalKey === undefined ? {} : { approval_key: approvalKey },
  };
  let check: string | null = null;
  const store = {
    approvalKeyCheck: async () => check,
    recordApprovalKeyCheck: async (fp: string) => void (check = fp),
  };
  const warn = vi.fn();
  const log = { warn, info: () => {} } as unknown as Logger;
  return { config, store, log, warn, check: () => check };
}

describe('the approval key', () => {
  it('is generated once, mode 0600, and its fingerprint recorded', async () => {
    const s = setup();
    const first = await openApprovalKey(s.config, s.store, s.log);
    expect(statSync(approvalKeyFile(s.config)).mode & 0o777).toBe(0o600);
    expect(s.check()).toBe(approvalKeyFingerprint(first.keys[0]!));
    const second = await openApprovalKey(s.config, s.store, s.log);
    expect(second.keys[0]!.equals(first.keys[0]!)).toBe(true);
  });

  it('refuses a malformed key from the environment or the file', async () => {
    await expect(openApprovalKey(setup('short').config, setup().store)).rejects.toBeInstanceOf(
      ApprovalKeyError,
    );
    const s = setup();
    await openApprovalKey(s.config, s.store);
    writeFileSync(approvalKeyFile(s.config), 'not a key\n');
    await expect(openApprovalKey(s.config, s.store)).rejects.toBeInstanceOf(ApprovalKeyError);
  });

  it('refuses to make a key of its own when the store already knows one', async () => {
    const first = setup();
    await openApprovalKey(first.config, first.store);
    // A second host on the same Redis, with a data directory of its own.
    const second = setup();
    await second.store.recordApprovalKeyCheck((await first.store.approvalKeyCheck())!);
    await expect(openApprovalKey(second.config, second.store)).rejects.toThrow(
      /copy that file from the host where Steward first started \(or set STEWARD_APPROVAL_KEY/,
    );
  });

  it('says so when the store was signed with another key', async () => {
    const s = setup(Buffer.alloc(32, 1).toString('base64'));
    await s.store.recordApprovalKeyCheck(approvalKeyFingerprint(Buffer.alloc(32, 2)));
    await openApprovalKey(s.config, s.store, s.log);
    expect(s.warn).toHaveBeenCalledWith(
      expect.objectContaining({ audit: true, event: 'approvals.key_mismatch' }),
      expect.stringContaining('signed with another approval key'),
    );
  });
});
