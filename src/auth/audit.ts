import type { Logger } from '../log/logger.js';

export type AuditEvent =
  | 'setup.completed'
  | 'setup.rejected'
  | 'auth.login.succeeded'
  | 'auth.login.failed'
  | 'auth.login.rate_limited'
  | 'auth.refresh.reused'
  | 'auth.logout';

/**
 * One structured line per security event, marked `audit: true` so it can be routed apart. Fields
 * are identifiers only (username, session id, client IP): never a password, hash, token or cookie.
 */
export function audit(
  log: Logger,
  event: AuditEvent,
  fields: Record<string, string | number | boolean | undefined> = {},
  level: 'info' | 'warn' = 'info',
): void {
  log[level]({ audit: true, event, ...fields }, event);
}
