import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { backupFileName } from '../backup/backup-format.js';
import { backupLines, type BackupSummary, type CreateBackupDeps } from '../backup/create-backup.js';
import { openBackup } from '../backup/open-backup.js';
import { restoreBackup, type RestoreReport } from '../backup/restore-backup.js';
import type { LoadedConfig } from '../config/load.js';
import { BackupError } from '../errors/backup-errors.js';
import { createAuditLog } from '../runtime/audit-log.js';
import type { Context } from '../runtime/context.js';
import { createAuditRepository } from '../store/audit-repository.js';
import { createApprovalSigner } from '../scripts/approval-signature.js';
import {
  approvalKeyFingerprint,
  existingApprovalKeys,
  findApprovalKey,
  legacyApprovalsMarker,
} from '../secrets/approval-key.js';
import { keyFingerprint } from '../secrets/crypto.js';
import { existingSecretsKeys } from '../secrets/key.js';
import { createBackupRepository } from '../store/backup-repository.js';
import { createMetaRepository } from '../store/meta-repository.js';
import { migrateStore, schemaVersionOf } from '../store/migrations.js';
import type { Redis } from '../store/redis.js';
import { createScriptRepository } from '../store/script-repository.js';
import { createSecretRepository } from '../store/secret-repository.js';
import { VERSION } from '../version.js';
import { storeMigrations } from './migrations.js';

/**
 * What `steward backup` and `GET /api/backup` need to write a backup: the store, the secrets key
 * the stored secrets use (it seals the file), and this deployment's approval keys (to tell which
 * approvals the file may vouch for). Nothing is created or recorded.
 */
export async function backupDeps(
  config: Pick<LoadedConfig, 'paths' | 'secrets' | 'redis'>,
  redis: Redis,
): Promise<CreateBackupDeps> {
  const candidates = await existingSecretsKeys(config);
  const stored = await createSecretRepository(redis).keyCheck();
  const secretsKey =
    candidates.find((c) => keyFingerprint(c.key) === stored)?.key ?? candidates[0]?.key;
  if (!secretsKey) {
    throw new BackupError(
      'secrets_key',
      'there is no secrets key here (secrets.key / STEWARD_SECRETS_KEY, or <data>/secrets_key): a backup is sealed with the deployment\u2019s secrets key',
    );
  }
  const approvalKeys = await existingApprovalKeys(config);
  return {
    repo: createBackupRepository(redis),
    secretsKey,
    verifier: approvalKeys ? createApprovalSigner(approvalKeys) : null,
    legacyApprovalsSigned: existsSync(legacyApprovalsMarker(config)),
    release: VERSION,
    prefix: config.redis.prefix,
  };
}

/**
 * Writes the backup to `out` (default: a dated file in the working directory; `-`: standard
 * output), mode 0600: to a temporary file beside it first, renamed into place only once
 * complete, so a failed backup never leaves a file that looks whole.
 */
export async function writeBackupFile(
  ctx: Pick<Context, 'config' | 'redis' | 'log'>,
  out: string | undefined,
): Promise<{ file: string; summary: BackupSummary }> {
  const deps = await backupDeps(ctx.config, ctx.redis);
  let summary: BackupSummary | undefined;
  const lines = backupLines(deps, (s) => (summary = s));
  const file = out === '-' ? 'standard output' : path.resolve(out ?? backupFileName(new Date()));
  if (out === '-') {
    for await (const line of lines) {
      if (!process.stdout.write(line)) await once(process.stdout, 'drain');
    }
  } else {
    await writeAtomically(file, lines);
  }
  await cliAudit(ctx).record({
    actor: 'cli',
    channel: 'cli',
    action: 'backup.create',
    target: file,
    details: { taken_at: summary?.header.taken_at, records: summary?.header.records },
  });
  return { file, summary: summary as BackupSummary };
}

/** Through a temporary file beside `file`, renamed into place only once complete. */
async function writeAtomically(file: string, lines: AsyncIterable<string>): Promise<void> {
  const partial = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${randomBytes(4).toString('hex')}.partial`,
  );
  const handle = await open(partial, 'wx', 0o600);
  try {
    for await (const line of lines) await handle.write(line);
    await handle.sync();
    await handle.close();
    await rename(partial, file);
  } catch (err) {
    await handle.close().catch(() => {});
    await rm(partial, { force: true });
    throw err;
  }
}

/**
 * Restores `file` into the store of `ctx` (see `restoreBackup`), then moves data of an older
 * schema forward. The approvals the file vouches for are signed here with this deployment's
 * approval key; afterwards the marker of the legacy-approval migration is written, so that the
 * migration from schema 1 signs nothing the file did not vouch for (an unsigned approval it did
 * not list is a forgery, whichever machine restores it).
 */
export async function restoreBackupFile(
  ctx: Pick<Context, 'config' | 'redis' | 'log'>,
  file: string,
  options: { force: boolean },
): Promise<RestoreReport & { migrated: { from: number; to: number } | null }> {
  const { config, redis, log } = ctx;
  const contents = openBackup(await readFile(file), await existingSecretsKeys(config));
  const approvalKey = await findApprovalKey(config, log);
  const signer = createApprovalSigner(approvalKey.keys);
  const migrations = storeMigrations({
    config,
    scripts: createScriptRepository(redis),
    signer,
    log,
  });
  const report = await restoreBackup(
    {
      repo: createBackupRepository(redis),
      signer,
      approvalKeyCheck: approvalKeyFingerprint(approvalKey.keys[0] as Buffer),
      schemaVersion: schemaVersionOf(migrations),
    },
    contents,
    options,
  );
  const marker = legacyApprovalsMarker(config);
  if (!existsSync(marker)) {
    await mkdir(path.dirname(marker), { recursive: true, mode: 0o700 });
    await writeFile(marker, `${new Date().toISOString()} (restore)\n`, { mode: 0o600 });
  }
  const migrated =
    contents.header.schema_version < schemaVersionOf(migrations)
      ? await migrateStore(createMetaRepository(redis), migrations, { release: VERSION, log })
      : null;
  // The restored chain goes on from its head: its next entry says where it came from.
  await cliAudit(ctx).record({
    actor: 'cli',
    channel: 'cli',
    action: 'backup.restore',
    target: path.resolve(file),
    details: {
      taken_at: contents.header.taken_at,
      records: report.records,
      resigned: report.resigned.length,
      unverified: report.unverified,
      force: options.force,
    },
  });
  return { ...report, migrated };
}

/** The audit log as the CLI writes it: what it records holds no secret, so nothing to redact. */
function cliAudit(ctx: Pick<Context, 'redis' | 'log'>) {
  return createAuditLog({
    repo: createAuditRepository(ctx.redis),
    redact: (text) => text,
    log: ctx.log,
  });
}
