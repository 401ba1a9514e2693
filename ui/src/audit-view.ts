import type { AuditChannel, AuditEntry } from './api/types.js';

/**
 * How the Activity screen reads an audit entry: who in words, through what, and the screen of
 * the script or schedule it concerns. Pure, so it is tested without a browser.
 */

export const channelLabels: Record<AuditChannel, string> = {
  api: 'API',
  ui: 'web UI',
  chat: 'chat',
  mcp: 'AI tool server',
  schedule: 'schedule',
  cli: 'command line',
  system: 'Steward itself',
};

/** Areas of `action` a filter can name whole (`script` matches `script.approve`, …). */
export const actionAreas = [
  'auth',
  'setup',
  'script',
  'secret',
  'schedule',
  'tool',
  'chat',
  'backup',
  'startup',
];

/** Who did it, as a person reads it: the AI, a schedule, a file on disk, or the name itself. */
export function actorLabel(actor: string): string {
  if (actor === 'ai' || actor === 'mcp') return 'the AI';
  if (actor === 'filesystem') return 'a file on disk';
  if (actor.startsWith('schedule:')) return `schedule ${actor.slice('schedule:'.length)}`;
  return actor;
}

const scriptName = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The UI path of the script or schedule an entry concerns; null when it concerns neither. */
export function entryLink(entry: Pick<AuditEntry, 'action' | 'target' | 'actor'>): string | null {
  const { action, target, actor } = entry;
  if (action.startsWith('script.') && target.endsWith('.star')) {
    return `/scripts/${encodeURIComponent(target)}`;
  }
  // The AI names scripts without the extension.
  if ((action === 'tool.script_run' || action === 'tool.script_exec') && scriptName.test(target)) {
    return `/scripts/${encodeURIComponent(`${target}.star`)}`;
  }
  if (action === 'schedule.deliver' && actor.startsWith('schedule:')) {
    return `/schedules/${encodeURIComponent(actor.slice('schedule:'.length))}`;
  }
  if (action.startsWith('schedule.') && action !== 'schedule.deliver' && target) {
    return `/schedules/${encodeURIComponent(target)}`;
  }
  return null;
}

export interface AuditFilters {
  action: string;
  actor: string;
  channel: string;
  /** `datetime-local` values (the browser's zone); empty when open. */
  since: string;
  until: string;
}

export const noFilters: AuditFilters = { action: '', actor: '', channel: '', since: '', until: '' };

/** The query of `GET /api/audit` for these filters (times sent as UTC instants). */
export function auditQuery(filters: AuditFilters, cursor?: string | null, limit = 50): string {
  const q = new URLSearchParams();
  if (filters.action.trim()) q.set('action', filters.action.trim());
  if (filters.actor.trim()) q.set('actor', filters.actor.trim());
  if (filters.channel) q.set('channel', filters.channel);
  for (const key of ['since', 'until'] as const) {
    const date = filters[key] ? new Date(filters[key]) : null;
    if (date && !Number.isNaN(date.getTime())) q.set(key, date.toISOString());
  }
  q.set('limit', String(limit));
  if (cursor) q.set('cursor', cursor);
  return `/api/audit?${q.toString()}`;
}

/** A few details of an entry, short: the reason of a rejection, a hash, an error… */
export function detailSummary(details: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(details)) {
    if (value === undefined || value === null || value === '') continue;
    let text = typeof value === 'string' ? value : JSON.stringify(value);
    if ((key === 'hash' || key === 'reviewed_hash' || key === 'commit') && text.length > 12) {
      text = text.slice(0, 12);
    }
    if (text.length > 80) text = `${text.slice(0, 80)}…`;
    parts.push(`${key}: ${text}`);
  }
  return parts.join(' · ');
}
