import { newCapabilities, scriptCapabilities } from './capabilities.js';
import type { ExecutionEntry, ScriptRecord, VersionRecord } from '../contracts/script-record.js';
import type { ScriptDetail, ScriptListEntry } from './script-schema.js';

/** The list entry of `GET /api/scripts`. */
export function toListEntry(record: ScriptRecord): ScriptListEntry {
  return {
    name: record.name,
    path: `scripts/${record.name}`,
    hash: record.hash,
    status: record.status,
    description: record.metadata.description,
    required_secrets: record.metadata.secrets,
    ...(record.status === 'approved' && record.approved_at && record.approved_by
      ? { approved_at: record.approved_at, approved_by: record.approved_by }
      : {}),
    created_at: record.created_at,
    modified_at: record.modified_at,
  };
}

/**
 * The detail of `GET /api/scripts/:name`, with what the text can reach and, when a version was
 * approved before, what is new against it.
 */
export function toDetail(
  record: ScriptRecord,
  history: ExecutionEntry[],
  approved?: Pick<VersionRecord, 'commit' | 'source'> | null,
): ScriptDetail {
  const capabilities = scriptCapabilities(record.name, record.source);
  return {
    name: record.name,
    source: record.source,
    hash: record.hash,
    status: record.status,
    metadata: {
      ...record.metadata,
      secret_destinations: record.metadata.secret_destinations ?? {},
    },
    execution_history: history,
    ...(record.status === 'approved' && record.approved_at && record.approved_by
      ? { approved_at: record.approved_at, approved_by: record.approved_by }
      : {}),
    ...(approved ? { approved_commit: approved.commit } : {}),
    ...(record.status === 'rejected'
      ? {
          ...(record.rejected_at ? { rejected_at: record.rejected_at } : {}),
          ...(record.rejected_by ? { rejected_by: record.rejected_by } : {}),
          ...(record.reason !== undefined ? { reason: record.reason } : {}),
        }
      : {}),
    capabilities,
    ...(approved
      ? {
          new_capabilities: newCapabilities(
            capabilities,
            scriptCapabilities(record.name, approved.source),
          ),
        }
      : {}),
  };
}
