import { AppError } from './catalogue.js';

/**
 * Why a backup was not taken or a file not restored (`steward backup`, `steward restore`):
 * - `format`: not a Steward backup, or of a format version this Steward does not read;
 * - `secrets_key`: no secrets key here, or not the key of the deployment that made the file;
 * - `altered`: the file does not verify under the right key (changed or damaged);
 * - `schema`: the data is of a newer schema than this Steward understands;
 * - `not_empty`: the store already holds Steward data and `--force` was not given;
 * - `contended`: the store kept changing while the backup read it;
 * - `write`: Redis refused part of the restore's transaction.
 */
export type BackupFailure =
  'format' | 'secrets_key' | 'altered' | 'schema' | 'not_empty' | 'contended' | 'write';

export class BackupError extends AppError<{ reason: BackupFailure }> {
  declare readonly details: { reason: BackupFailure };
  constructor(reason: BackupFailure, message: string) {
    super('backup_refused', message, { reason }, false);
    this.name = 'BackupError';
  }
}
