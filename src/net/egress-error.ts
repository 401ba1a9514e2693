export type EgressErrorCode =
  | 'invalid_url'
  | 'scheme'
  | 'blocked'
  | 'dns'
  | 'timeout'
  | 'too_large'
  | 'too_many_redirects'
  | 'aborted'
  | 'network';

/** An outbound request refused or failed; the message is written to be shown to a user or the AI. */
export class EgressError extends Error {
  override name = 'EgressError';
  constructor(
    readonly code: EgressErrorCode,
    message: string,
  ) {
    super(message);
  }
}
