import { z } from 'zod';

/**
 * Names as the API takes them (DESIGN.md "sizes"); tools take the same names without `.star`.
 * The first character is a letter or digit, so a name never reads as an option or a hidden file.
 */
export const scriptNamePattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}\.star$/;

/** What a refused name is told; the path, body and service checks all say it the same way. */
export function scriptNameMessage(name: unknown): string {
  return `invalid script name ${JSON.stringify(name)}: letters, digits, _ and -, ending in .star`;
}

export const scriptNameSchema = z
  .string()
  .regex(scriptNamePattern, { error: (issue) => scriptNameMessage(issue.input) });

export function isScriptName(name: string): boolean {
  return scriptNamePattern.test(name);
}

/** Tool-server names come without the extension; API names with it. Both map to the API form. */
export function toScriptName(name: string): string {
  return name.endsWith('.star') ? name : `${name}.star`;
}

/** The tool-server form of a name: without `.star`. */
export function bareScriptName(name: string): string {
  return name.replace(/\.star$/, '');
}

/** Largest accepted source, in UTF-8 bytes (DESIGN.md "sizes"). */
export const maxSourceBytes = 256 * 1024;

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

const record = scriptRecordSchema.shape;

/** SPEC "Script (list entry)": `GET /api/scripts`. Field order is the order of the body. */
export const scriptListEntrySchema = z.object({
  name: record.name,
  path: z.string(),
  hash: record.hash,
  status: record.status,
  description: scriptMetadataSchema.shape.description,
  required_secrets: scriptMetadataSchema.shape.secrets,
  approved_at: record.approved_at,
  approved_by: record.approved_by,
  created_at: record.created_at,
  modified_at: record.modified_at,
});
export type ScriptListEntry = z.infer<typeof scriptListEntrySchema>;

/**
 * What a script can reach, for the person who approves it (`capabilities.ts` computes it from the
 * text): secrets with destinations and place, hosts of literal URLs, host modules, top-level
 * functions, and characters a reviewer cannot see.
 */
const hiddenCharacterSchema = z.object({
  line: z.number().int(),
  column: z.number().int(),
  /** `U+202E`. */
  code: z.string(),
  name: z.string(),
});

export const scriptCapabilitiesSchema = z.object({
  secrets: z.array(
    z.object({
      name: z.string(),
      /** Where it may be sent; empty when the header binds it nowhere. */
      destinations: z.array(z.string()),
      /** `header Authorization`, `url` or `body`; null when any place of a request will do. */
      placement: z.string().nullable(),
    }),
  ),
  /** Hosts (with a port when one is written) of the URLs written literally in the code. */
  hosts: z.array(z.string()),
  /** Host modules the code names: `http`, `secrets`, `hmac`, … */
  modules: z.array(z.string()),
  /** Functions defined at the top level (a run may call any of them by name). */
  functions: z.array(z.string()),
  hidden_characters: z.array(hiddenCharacterSchema),
});
export type ScriptCapabilities = z.infer<typeof scriptCapabilitiesSchema>;

/** SPEC "Script (detail)": `GET /api/scripts/:name`. */
export const scriptDetailSchema = scriptRecordSchema
  .pick({ name: true, source: true, hash: true, status: true })
  .extend({
    // The detail always says where each secret may go ({} when none is bound).
    metadata: scriptMetadataSchema.extend({
      secret_destinations: z.record(z.string(), z.array(z.string())),
    }),
    execution_history: z.array(executionEntrySchema),
    /** Beyond the spec, for review: who approved (when approved) or rejected and why. */
    approved_at: record.approved_at,
    approved_by: record.approved_by,
    /** The version the last approval covered, kept while a change is pending: a review's base. */
    approved_commit: z.string().optional(),
    rejected_at: record.rejected_at,
    rejected_by: record.rejected_by,
    reason: record.reason,
    capabilities: scriptCapabilitiesSchema,
    /** What the text can reach that the last approved version could not (absent without one). */
    new_capabilities: scriptCapabilitiesSchema.optional(),
  });
export type ScriptDetail = z.infer<typeof scriptDetailSchema>;

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
