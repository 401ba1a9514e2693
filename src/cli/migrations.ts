import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { LoadedConfig } from '../config/load.js';
import type { Logger } from '../log/logger.js';
import { signLegacyApprovals } from '../scripts/approval-records.js';
import type { ApprovalSigner } from '../scripts/approval-signature.js';
import { legacyApprovalsMarker } from '../secrets/approval-key.js';
import type { Migration } from '../store/migrations.js';
import type { ScriptRepository } from '../store/script-repository.js';

export interface MigrationDeps {
  config: Pick<LoadedConfig, 'paths'>;
  scripts: ScriptRepository;
  signer: ApprovalSigner;
  log: Logger;
}

/**
 * Every migration of stored data, oldest first (`src/store/migrations.ts` runs them). A new step
 * goes last, with the next `to`, and a test that runs it on data the release before wrote.
 */
export function storeMigrations({ config, scripts, signer, log }: MigrationDeps): Migration[] {
  return [
    {
      to: 2,
      description: 'sign the approvals of release 1 with the approval key',
      async run() {
        const marker = legacyApprovalsMarker(config);
        const report = await signLegacyApprovals(scripts, signer, {
          trusted: !existsSync(marker),
          log,
        });
        await writeFile(marker, `${new Date().toISOString()}\n`, { mode: 0o600 });
        log.info(
          { signed: report.signed.length, unsigned: report.unsigned },
          'approvals signed with the approval key',
        );
      },
    },
  ];
}
