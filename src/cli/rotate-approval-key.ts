import { resignApprovals } from '../scripts/approval-records.js';
import { createApprovalSigner } from '../scripts/approval-signature.js';
import {
  approvalKeyFingerprint,
  commitStagedApprovalKey,
  openApprovalKey,
  stageApprovalKey,
  stagedApprovalKeyFile,
} from '../secrets/approval-key.js';
import type { Context } from '../runtime/context.js';
import { createMetaRepository } from '../store/meta-repository.js';
import { createScriptRepository } from '../store/script-repository.js';

export interface ApprovalRotation {
  /** Approvals signed with the new key. */
  resigned: string[];
  /** Approvals that did not verify before the rotation: they still need an administrator. */
  unverified: string[];
  /** The key file now holding the new key, or null when it was printed for the environment. */
  file: string | null;
}

/**
 * `steward approvals rotate-key`: a new approval key, staged beside the old one before any record
 * changes (a crash part-way is finished by the next start), every approval that verifies signed
 * again with it, then the key file replaced. A key from the environment is printed instead, for
 * the operator to set STEWARD_APPROVAL_KEY. Other processes keep the old key in memory and refuse
 * runs of re-signed scripts until they restart.
 */
export async function rotateApprovalKey(
  ctx: Pick<Context, 'config' | 'redis' | 'log'>,
  print: (text: string) => void = (text) => process.stdout.write(text),
): Promise<ApprovalRotation> {
  const meta = createMetaRepository(ctx.redis);
  const opened = await openApprovalKey(ctx.config, meta, ctx.log);
  const newKey = await stageApprovalKey(ctx.config);
  const report = await resignApprovals(
    createScriptRepository(ctx.redis),
    createApprovalSigner([...opened.keys, newKey]),
    createApprovalSigner([newKey]),
  );
  await meta.recordApprovalKeyCheck(approvalKeyFingerprint(newKey));
  if (opened.origin === 'file') {
    await commitStagedApprovalKey(ctx.config, 'file');
  } else {
    print(
      `Approvals re-signed with a new key. Set STEWARD_APPROVAL_KEY to the line below, restart every Steward process, then delete ${stagedApprovalKeyFile(ctx.config)}:\n${newKey.toString('base64')}\n`,
    );
  }
  ctx.log.info(
    { audit: true, event: 'approvals.key_rotated', resigned: report.signed.length },
    'approval key rotated',
  );
  return {
    resigned: report.signed,
    unverified: report.unsigned,
    file: opened.origin === 'file' ? opened.file : null,
  };
}
