import { z } from 'zod';

export const scriptStatuses = ['pending', 'approved', 'rejected'] as const;
export const scriptStatusSchema = z.enum(scriptStatuses);
export type ScriptStatus = z.infer<typeof scriptStatusSchema>;

/** The `# @key: value` header of a script, as shown in list entries and details. */
export const scriptMetadataSchema = z.object({
  description: z.string(),
  author: z.string(),
  version: z.string(),
  secrets: z.array(z.string()),
  /** `# @secrets: NAME -> host, …`: where each bound secret may be sent; absent when none is. */
  secret_destinations: z.record(z.string(), z.array(z.string())).optional(),
  /**
   * `# @secrets: NAME -> host in header H | in url | in body`: the one place of a request each
   * bound secret may be put (`header H`, `url`, `body`); absent when none is bound to a place.
   */
  secret_placements: z.record(z.string(), z.string()).optional(),
});
export type ScriptMetadata = z.infer<typeof scriptMetadataSchema>;

/** A script as the store holds it (the `script:<name>` hash, decoded). */
export const scriptRecordSchema = z.object({
  name: z.string(),
  source: z.string(),
  hash: z.string(),
  status: scriptStatusSchema,
  metadata: scriptMetadataSchema,
  created_at: z.string(),
  modified_at: z.string(),
  /** Commit of the current source. */
  head: z.string(),
  approved_at: z.string().optional(),
  approved_by: z.string().optional(),
  /** The hash the last approval covered; kept while pending so a run can say `script_modified`. */
  approved_hash: z.string().optional(),
  /**
   * HMAC of the approval (`approval-signature.ts`) under a key outside Redis: a record written
   * by anyone without that key does not run.
   */
  approval_sig: z.string().optional(),
  rejected_at: z.string().optional(),
  rejected_by: z.string().optional(),
  reason: z.string().optional(),
});
export type ScriptRecord = z.infer<typeof scriptRecordSchema>;

/** One entry of a script's version history (SPEC "Script version entry"). */
export const versionEntrySchema = z.object({
  commit: z.string(),
  message: z.string(),
  author: z.string(),
  timestamp: z.string(),
});
export type VersionEntry = z.infer<typeof versionEntrySchema>;

/** A version as stored: the entry plus the source it recorded. */
export const versionRecordSchema = versionEntrySchema.extend({
  source: z.string(),
  hash: z.string(),
});
export type VersionRecord = z.infer<typeof versionRecordSchema>;

/** Who changed a script and why, recorded on the version it creates. */
export type ChangeAuthor = Pick<VersionEntry, 'author' | 'message'>;

/** One run in a script's `execution_history`. */
export const executionEntrySchema = z.object({
  timestamp: z.string(),
  success: z.boolean(),
  duration_ms: z.number().int(),
});
export type ExecutionEntry = z.infer<typeof executionEntrySchema>;

/*
 * The Redis hash form. Every value is a string: metadata is JSON, and the approval and rejection
 * fields are written only when set (an empty one reads as absent).
 */

const statuses = new Set<string>(scriptStatuses);

/** Approval and rejection fields: stored only when set. */
const optionalFields = [
  'approved_at',
  'approved_by',
  'approved_hash',
  'approval_sig',
  'rejected_at',
  'rejected_by',
  'reason',
] as const satisfies ReadonlyArray<keyof ScriptRecord>;

export function decodeScript(raw: Record<string, string>): ScriptRecord | null {
  const { name, source, hash, status, created_at, modified_at, head } = raw;
  if (
    name === undefined ||
    source === undefined ||
    hash === undefined ||
    status === undefined ||
    !statuses.has(status) ||
    created_at === undefined ||
    modified_at === undefined ||
    head === undefined
  ) {
    return null;
  }
  const decoded: ScriptRecord = {
    name,
    source,
    hash,
    status: status as ScriptStatus,
    metadata: parseMetadataField(raw.metadata),
    created_at,
    modified_at,
    head,
  };
  for (const field of optionalFields) {
    const value = raw[field];
    if (value !== undefined && value !== '') decoded[field] = value;
  }
  return decoded;
}

function parseMetadataField(text: string | undefined): ScriptMetadata {
  const empty: ScriptMetadata = { description: '', author: '', version: '', secrets: [] };
  if (!text) return empty;
  try {
    return { ...empty, ...(JSON.parse(text) as Partial<ScriptMetadata>) };
  } catch {
    return empty;
  }
}

/** Field values of the `script:<name>` hash for a record. */
export function encodeScript(script: ScriptRecord): Record<string, string> {
  const out: Record<string, string> = {
    name: script.name,
    source: script.source,
    hash: script.hash,
    status: script.status,
    metadata: JSON.stringify(script.metadata),
    created_at: script.created_at,
    modified_at: script.modified_at,
    head: script.head,
  };
  for (const field of optionalFields) {
    const value = script[field];
    if (value !== undefined) out[field] = value;
  }
  return out;
}

export function decodeVersion(raw: Record<string, string>): VersionRecord | null {
  const { commit, message, author, timestamp, source, hash } = raw;
  if (
    commit === undefined ||
    message === undefined ||
    author === undefined ||
    timestamp === undefined ||
    source === undefined ||
    hash === undefined
  ) {
    return null;
  }
  return { commit, message, author, timestamp, source, hash };
}
