import type { AuditChannel, AuditEntry } from './api/types.js';

/**
 * A script's versions told from its audit entries: how each came to be (written, restored) and
 * what was decided about it (approved, rejected), by whom, through which channel. Pure, so it is
 * tested without a browser. Entries older than the audit retention are gone: such a version
 * shows no story rather than a guessed one.
 */

export interface VersionEvent {
  kind: 'approved' | 'rejected' | 'written' | 'restored';
  actor: string;
  channel: AuditChannel;
  at: string;
  /** The text's hash as recorded (`sha256:…`), when the entry carries it. */
  hash?: string;
  reason?: string;
  /** For a restore: the version whose text it brought back. */
  from?: string;
}

const kinds: Record<string, VersionEvent['kind']> = {
  'script.create': 'written',
  'script.update': 'written',
  'script.import': 'written',
  'script.restore': 'restored',
  'script.approve': 'approved',
  'script.reject': 'rejected',
};

const text = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** Events by version commit, newest first within each. Failed or refused actions are left out. */
export function versionStories(entries: AuditEntry[]): Map<string, VersionEvent[]> {
  const out = new Map<string, VersionEvent[]>();
  for (const e of entries) {
    const kind = kinds[e.action];
    const commit = text(e.details.commit);
    if (!kind || e.outcome !== 'ok' || !commit) continue;
    const event: VersionEvent = { kind, actor: e.actor, channel: e.channel, at: e.at };
    const hash = text(e.details.hash);
    if (hash) event.hash = hash;
    const reason = text(e.details.reason);
    if (reason && kind === 'rejected') event.reason = reason;
    const from = text(e.details.from);
    if (from && kind === 'restored') event.from = from;
    const list = out.get(commit) ?? [];
    list.push(event);
    out.set(commit, list);
  }
  return out;
}

/**
 * The version to go back to: the one the record still calls approved (a change pending on top of
 * it), else the newest version the audit log says was approved. Null when there is none, or when
 * it is the current version already.
 */
export function lastApproved(
  approvedCommit: string | undefined,
  stories: Map<string, VersionEvent[]>,
  order: string[],
): string | null {
  const current = order[0];
  if (approvedCommit) return approvedCommit === current ? null : approvedCommit;
  for (const commit of order) {
    const events = stories.get(commit) ?? [];
    // Newest first: an approval later revoked by a rejection of the same text does not count.
    const decided = events.find((e) => e.kind === 'approved' || e.kind === 'rejected');
    if (decided?.kind === 'approved') return commit === current ? null : commit;
  }
  return null;
}
