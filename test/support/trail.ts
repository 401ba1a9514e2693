import type { AuditEvent } from '../../src/runtime/audit-entry.js';
import type { AuditLog } from '../../src/runtime/audit-log.js';

/** An audit trail that keeps what it is told, for tests of the services that record. */
export function memoryTrail(): Pick<AuditLog, 'record'> & { events: AuditEvent[] } {
  const events: AuditEvent[] = [];
  return {
    events,
    record: async (event) => void events.push(event),
  };
}
