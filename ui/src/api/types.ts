/**
 * The admin API's wire shapes, inferred from the zod schemas the routes validate with: one
 * source of truth, imported as types only (nothing of the server reaches the bundle).
 */
import type { z } from 'zod';
import type {
  approvedSchema,
  changedSchema,
  rejectedSchema,
  restoredSchema,
  runResultSchema,
} from '../../../src/api/routes/scripts/schemas.js';
import type { secretInfoSchema } from '../../../src/api/routes/secrets.js';
import type { messageSchema, sessionSchema } from '../../../src/api/routes/sessions.js';
import type { modelSchema } from '../../../src/api/routes/models.js';
import type { identitySchema, pairingSchema } from '../../../src/api/routes/chat.js';
import type { sessionSchema as accessSessionSchema } from '../../../src/api/routes/auth.js';
import type {
  createScheduleBody,
  runEntrySchema,
  scheduleSchema,
  updateScheduleBody,
} from '../../../src/schedules/schedule-schema.js';
import type {
  scriptDetailSchema,
  scriptListEntrySchema,
  ScriptStatus as DomainScriptStatus,
  versionEntrySchema,
} from '../../../src/scripts/script-schema.js';
import type { modelRefSchema } from '../../../src/engine/models-service.js';
import type { MetricsSnapshot as ServerMetrics } from '../../../src/api/metrics.js';
import type { statusSchema } from '../../../src/api/routes/status.js';
import type { auditPageSchema } from '../../../src/api/routes/audit.js';
import type { AuditChannel as ServerAuditChannel } from '../../../src/runtime/audit-entry.js';

export type ScriptStatus = DomainScriptStatus;
export type ScriptListEntry = z.infer<typeof scriptListEntrySchema>;
export type ScriptDetail = z.infer<typeof scriptDetailSchema>;
export type ScriptChanged = z.infer<typeof changedSchema>;
export type ScriptApproved = z.infer<typeof approvedSchema>;
export type ScriptRejected = z.infer<typeof rejectedSchema>;
export type ScriptRestored = z.infer<typeof restoredSchema>;
export type RunResult = z.infer<typeof runResultSchema>;
export type VersionEntry = z.infer<typeof versionEntrySchema>;
export type SecretInfo = z.infer<typeof secretInfoSchema>;
export type Session = z.infer<typeof sessionSchema>;
export type Message = z.infer<typeof messageSchema>;
export type Model = z.infer<typeof modelSchema>;
export type ModelRef = z.infer<typeof modelRefSchema>;
export type Pairing = z.infer<typeof pairingSchema>;
export type Identity = z.infer<typeof identitySchema>;
export type AccessSession = z.infer<typeof accessSessionSchema>;
export type Schedule = z.infer<typeof scheduleSchema>;
export type ScheduleRun = z.infer<typeof runEntrySchema>;
export type CreateSchedule = z.input<typeof createScheduleBody>;
export type UpdateSchedule = z.input<typeof updateScheduleBody>;
export type Metrics = ServerMetrics;
export type AuditPage = z.infer<typeof auditPageSchema>;
export type AuditEntry = AuditPage['entries'][number];
export type AuditChannel = ServerAuditChannel;

/** `GET /ready`. */
export interface Readiness {
  ready: boolean;
  checks: { admin_setup: boolean; script_store: boolean; mcp_server: boolean };
  reason?: string;
}

/** `GET /health`. */
export type Health =
  | { status: 'healthy'; uptime: string; version: string }
  | { status: 'unhealthy'; reason: string; message: string };

/** `GET /api/status`: engine and chat providers. */
export type Status = z.infer<typeof statusSchema>;
