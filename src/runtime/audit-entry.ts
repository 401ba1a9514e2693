import { createHash } from 'node:crypto';
import { z } from 'zod';

/**
 * One entry of the audit log (DESIGN "Audit log"): who did what to what, and how it ended. The
 * chain fields: `prev` is the hash of the entry before it, `hash` = SHA-256 of `prev` and this
 * entry's canonical JSON, so a removed, reordered or edited entry breaks every check after it.
 */

/** Through what an action arrived. */
export const auditChannels = ['api', 'ui', 'chat', 'mcp', 'schedule', 'cli', 'system'] as const;
export type AuditChannel = (typeof auditChannels)[number];

export const auditOutcomes = ['ok', 'failed', 'refused'] as const;
export type AuditOutcome = (typeof auditOutcomes)[number];

export const auditEntrySchema = z.object({
  /** The stream id: time-ordered, unique, the cursor of `GET /api/audit`. */
  id: z.string(),
  at: z.string(),
  /** Who: the administrator's name, `ai`, `schedule:<id>`, `telegram:<user id>`, an IP… */
  actor: z.string(),
  channel: z.enum(auditChannels),
  /** Dotted, area first: `auth.login`, `script.approve`, `tool.call`, … */
  action: z.string(),
  /** What it acted on: a script name, a secret name, a schedule id, a tool name… */
  target: z.string(),
  outcome: z.enum(auditOutcomes),
  details: z.record(z.string(), z.unknown()),
  prev: z.string(),
  hash: z.string(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/** What a caller records; the log adds time, chain and id. */
export type AuditEvent = Pick<AuditEntry, 'actor' | 'channel' | 'action' | 'target'> &
  Partial<Pick<AuditEntry, 'outcome' | 'details'>>;

/** The hashed part of an entry, as stored. */
export type ChainedEntry = Omit<AuditEntry, 'id' | 'hash'>;

/** JSON with object keys sorted at every depth: one text per value, whoever wrote it. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : v,
  );
}

export function chainHash(entry: ChainedEntry): string {
  return hashText(entry.prev, canonicalJson(entry));
}

/** The chain hash of an entry stored as `json` (its canonical JSON) after `prev`. */
export function hashText(prev: string, json: string): string {
  return createHash('sha256').update(prev).update(json).digest('hex');
}
