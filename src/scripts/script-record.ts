import type { ScriptMetadata } from './metadata.js';

export type ScriptStatus = 'pending' | 'approved' | 'rejected';

/** A script as the store holds it (the `script:<name>` hash, decoded). */
export interface ScriptRecord {
  name: string;
  source: string;
  hash: string;
  status: ScriptStatus;
  metadata: ScriptMetadata;
  created_at: string;
  modified_at: string;
  /** Commit of the current source. */
  head: string;
  approved_at?: string;
  approved_by?: string;
  /** The hash the last approval covered; kept while pending so a run can say `script_modified`. */
  approved_hash?: string;
  rejected_at?: string;
  rejected_by?: string;
  reason?: string;
}

export interface VersionEntry {
  commit: string;
  message: string;
  author: string;
  timestamp: string;
}

export interface VersionRecord extends VersionEntry {
  source: string;
  hash: string;
}

export interface ExecutionEntry {
  timestamp: string;
  success: boolean;
  duration_ms: number;
}

/** Who changed a script and why, recorded on the version it creates. */
export interface ChangeAuthor {
  author: string;
  message: string;
}

const statuses = new Set<string>(['pending', 'approved', 'rejected']);

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
  const record: ScriptRecord = {
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
    if (value !== undefined && value !== '') record[field] = value;
  }
  return record;
}

/** Approval and rejection fields: stored only when set. */
const optionalFields = [
  'approved_at',
  'approved_by',
  'approved_hash',
  'rejected_at',
  'rejected_by',
  'reason',
] as const;

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
export function encodeScript(record: ScriptRecord): Record<string, string> {
  const out: Record<string, string> = {
    name: record.name,
    source: record.source,
    hash: record.hash,
    status: record.status,
    metadata: JSON.stringify(record.metadata),
    created_at: record.created_at,
    modified_at: record.modified_at,
    head: record.head,
  };
  for (const field of optionalFields) {
    const value = record[field];
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
