import type { Logger } from '../log/logger.js';
import type { AuditChannel, AuditOutcome } from '../runtime/audit-entry.js';
import type { AuditLog } from '../runtime/audit-log.js';

export type AuthEvent =
  | 'setup.completed'
  | 'setup.rejected'
  | 'auth.login.succeeded'
  | 'auth.login.failed'
  | 'auth.refresh.reused'
  | 'auth.logout';

/** Each event's entry in the audit log: its action and outcome. */
const entries: Record<AuthEvent, { action: string; outcome: AuditOutcome }> = {
  'setup.completed': { action: 'auth.setup', outcome: 'ok' },
  'setup.rejected': { action: 'auth.setup', outcome: 'refused' },
  'auth.login.succeeded': { action: 'auth.login', outcome: 'ok' },
  'auth.login.failed': { action: 'auth.login', outcome: 'failed' },
  // A refresh token used twice: the whole session is revoked (SPEC "Authentication").
  'auth.refresh.reused': { action: 'auth.session.revoke', outcome: 'refused' },
  'auth.logout': { action: 'auth.logout', outcome: 'ok' },
};

export interface AuthAuditFields {
  ip: string;
  channel?: AuditChannel | undefined;
  /** Known only once authenticated; else the entry's actor is the client's address. */
  username?: string | undefined;
  [field: string]: string | number | boolean | undefined;
}

export type AuthAudit = (
  event: AuthEvent,
  fields: AuthAuditFields,
  level?: 'info' | 'warn',
) => Promise<void>;

/**
 * One structured line per security event, marked `audit: true`, and its entry in the audit log.
 * Fields are identifiers only (username, session id, client IP): never a password, hash, token
 * or cookie.
 */
export function createAuthAudit(log: Logger, trail: Pick<AuditLog, 'record'>): AuthAudit {
  return async (event, fields, level = 'info') => {
    const { channel, ...rest } = fields;
    log[level]({ audit: true, event, ...rest }, event);
    const { username, ip, ...details } = rest;
    await trail.record({
      actor: username ?? `ip:${ip}`,
      channel: channel ?? 'api',
      ...entries[event],
      target: username ?? '',
      details: { ip, ...details },
    });
  };
}
