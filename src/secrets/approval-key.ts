import { createHmac } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import { ApprovalKeyError } from '../errors/secrets-errors.js';
import type { Logger } from '../log/logger.js';
import type { MetaRepository } from '../store/meta-repository.js';
import { decodeKey, generateSecretsKey } from './crypto.js';

/**
 * The key approvals are signed with (DESIGN "Approval integrity"): `secrets.approval_key`
 * (STEWARD_APPROVAL_KEY), else `<data>/approval_key`, generated 0600 on first start like the
 * secrets key. It never enters Redis: only a one-way fingerprint does, so that a start with
 * another key can say why approved scripts stopped running.
 */

export interface OpenedApprovalKey {
  /** The signing key first; a staged key of a rotation under way after it (verify only). */
  keys: Buffer[];
  origin: 'config' | 'file';
  /** `<data>/approval_key`, whether or not it is the origin. */
  file: string;
}

export const approvalKeyFile = (config: Pick<LoadedConfig, 'paths'>) =>
  path.join(config.paths.data, 'approval_key');
/**
 * Written once the approvals of an older release (unsigned) were signed. Kept on disk, not in
 * Redis: a Redis writer who rolled the schema version back must not get forged approvals signed
 * by the next start.
 */
export const legacyApprovalsMarker = (config: Pick<LoadedConfig, 'paths'>) =>
  path.join(config.paths.data, 'approvals_signed');
/** Where a rotation puts the new key before it re-signs, so a crash never loses it. */
export const stagedApprovalKeyFile = (config: Pick<LoadedConfig, 'paths'>) =>
  `${approvalKeyFile(config)}.new`;

const ENV_HINT = 'secrets.approval_key (STEWARD_APPROVAL_KEY)';

export function approvalKeyFingerprint(key: Buffer): string {
  return `v1:${createHmac('sha256', key).update('steward approval key check').digest('hex')}`;
}

export type ApprovalKeyStore = Pick<MetaRepository, 'approvalKeyCheck' | 'recordApprovalKeyCheck'>;

export async function openApprovalKey(
  config: Pick<LoadedConfig, 'paths' | 'secrets'>,
  store: ApprovalKeyStore,
  log?: Logger,
): Promise<OpenedApprovalKey> {
  const stored = await store.approvalKeyCheck();
  const opened = await findApprovalKey(config, log, stored !== null);
  const { keys, origin, file } = opened;
  const [key, staged] = keys as [Buffer, Buffer | undefined];
  const fingerprint = approvalKeyFingerprint(key);
  if (stored === null) {
    await store.recordApprovalKeyCheck(fingerprint);
  } else if (stored !== fingerprint && !(staged && approvalKeyFingerprint(staged) === stored)) {
    log?.warn(
      {
        audit: true,
        event: 'approvals.key_mismatch',
        origin: origin === 'config' ? ENV_HINT : file,
      },
      'the approvals in this store were signed with another approval key: approved scripts will not run until an administrator approves them again, or the original key is restored',
    );
  }
  return opened;
}

/**
 * The approval key of this deployment without a word to the store: the configured one, else the
 * file (generated when there is none, as a first start would). A restore signs with it before
 * the store holds anything.
 */
export async function findApprovalKey(
  config: Pick<LoadedConfig, 'paths' | 'secrets'>,
  log?: Logger,
  /** The store already knows an approval key's fingerprint: then none may be made here. */
  storeHasKey = false,
): Promise<OpenedApprovalKey> {
  const file = approvalKeyFile(config);
  const staged = await readApprovalKey(stagedApprovalKeyFile(config));
  let key: Buffer;
  let origin: OpenedApprovalKey['origin'];
  if (config.secrets.approval_key !== undefined) {
    origin = 'config';
    key = parse(config.secrets.approval_key, ENV_HINT);
  } else {
    origin = 'file';
    const existing = await readApprovalKey(file);
    if (existing) {
      key = existing;
    } else if (staged) {
      // The key file is gone but a rotation's new key is there: it is the newest key there was.
      await rename(stagedApprovalKeyFile(config), file);
      key = staged;
    } else if (storeHasKey) {
      // Another process of this deployment signed approvals with a key this one lacks (a second
      // host, or a lost data directory): a key of its own would refuse every approved script.
      throw new ApprovalKeyError(
        `the approvals in Redis were signed with an approval key, but ${file} does not exist: copy that file from the host where Steward first started (or set STEWARD_APPROVAL_KEY on every host). If the key is lost, put a new one there (openssl rand -base64 32 > ${file}); every approved script then needs approving again`,
      );
    } else {
      key = await createKeyFile(file);
      log?.info({ file }, 'generated a new approval key');
    }
    await warnIfLoose(file, log);
  }
  const keys = staged && !staged.equals(key) ? [key, staged] : [key];
  return { keys, origin, file };
}

/**
 * The approval keys that exist here (signing key first), creating nothing: a backup checks the
 * approvals it copies with them. Null when this deployment has none.
 */
export async function existingApprovalKeys(
  config: Pick<LoadedConfig, 'paths' | 'secrets'>,
): Promise<Buffer[] | null> {
  const staged = await readApprovalKey(stagedApprovalKeyFile(config));
  const key =
    config.secrets.approval_key !== undefined
      ? parse(config.secrets.approval_key, ENV_HINT)
      : await readApprovalKey(approvalKeyFile(config));
  const found = [key, staged].filter((k): k is Buffer => k !== null);
  return found.length > 0 ? found : null;
}

/** Writes a rotation's new key beside the current one, before any record is re-signed. */
export async function stageApprovalKey(config: Pick<LoadedConfig, 'paths'>): Promise<Buffer> {
  const key = generateSecretsKey();
  await writeKeyFile(stagedApprovalKeyFile(config), key);
  return key;
}

/** Every approval is re-signed with the staged key: it becomes the key. */
export async function commitStagedApprovalKey(
  config: Pick<LoadedConfig, 'paths'>,
  origin: OpenedApprovalKey['origin'],
): Promise<void> {
  const staged = stagedApprovalKeyFile(config);
  if (origin === 'file') await rename(staged, approvalKeyFile(config));
  else await rm(staged, { force: true });
}

async function readApprovalKey(file: string): Promise<Buffer | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ApprovalKeyError(
      `cannot read the approval key file ${file}: ${(err as Error).message}`,
    );
  }
  return parse(text, file);
}

function parse(text: string, origin: string): Buffer {
  const key = decodeKey(text);
  if (!key) {
    throw new ApprovalKeyError(
      `the approval key from ${origin} is not base64 of 32 bytes (generate one with: openssl rand -base64 32)`,
    );
  }
  return key;
}

/** Exclusive create: two processes starting together end up with the same key. */
async function createKeyFile(file: string): Promise<Buffer> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = generateSecretsKey();
  try {
    await writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const other = await readApprovalKey(file);
    if (!other) throw new ApprovalKeyError(`the approval key file ${file} vanished while starting`);
    return other;
  }
}

async function writeKeyFile(file: string, key: Buffer): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600 });
}

async function warnIfLoose(file: string, log?: Logger): Promise<void> {
  try {
    const { mode } = await stat(file);
    if ((mode & 0o077) !== 0) {
      log?.warn(
        { file, mode: (mode & 0o777).toString(8) },
        'the approval key file is readable by others; chmod 600 it',
      );
    }
  } catch {}
}
