import { AppError, type EgressErrorCode } from './catalogue.js';

export type { EgressErrorCode } from './catalogue.js';

/** An outbound request refused or failed; the message is written to be shown to a user or the AI. */
export class EgressError extends AppError {
  declare readonly code: EgressErrorCode;
  constructor(code: EgressErrorCode, message: string) {
    super(code, message);
    this.name = 'EgressError';
  }
}

/** An `egress.allow` entry that does not parse (stops start-up with the config error). */
export class AllowlistError extends AppError {
  constructor(message: string) {
    super('allowlist_invalid', message);
    this.name = 'AllowlistError';
  }
}
