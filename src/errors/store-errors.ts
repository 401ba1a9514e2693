import { AppError } from './catalogue.js';

export interface StoreVersionDetails extends Record<string, unknown> {
  /** The schema version of the data in Redis. */
  stored: number;
  /** The newest schema version this Steward knows. */
  supported: number;
}

/**
 * The store holds data of a newer schema than this Steward knows: reading or writing it could
 * lose what the newer release added. Start-up stops on it, naming both versions.
 */
export class StoreVersionError extends AppError<StoreVersionDetails> {
  declare readonly details: StoreVersionDetails;
  constructor(stored: number, supported: number, writtenBy?: string) {
    super(
      'store_version_unsupported',
      `the data in Redis has schema version ${stored}${writtenBy ? ` (written by Steward ${writtenBy})` : ''}, but this Steward understands schema versions up to ${supported}: upgrade Steward, or restore a backup made by this version`,
      { stored, supported },
    );
    this.name = 'StoreVersionError';
  }
}
