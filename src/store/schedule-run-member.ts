/** What identifies a run in flight; `member` is its running-set member and its claim's value. */
export interface InFlight {
  scheduleId: string;
  runId: string;
  /** Epoch ms of the cron fire time; null for a manual run. */
  fireTime: number | null;
  startedAt: string;
  member: string;
}

/**
 * Space-separated so the batch take script (lua/schedule-take-many-3.lua) can build the same
 * string; no part can hold a space (random base64url ids, digits, an ISO time).
 */
export function inFlightRun(run: Omit<InFlight, 'member'>): InFlight {
  const { scheduleId, runId, fireTime, startedAt } = run;
  const member = `${runId} ${scheduleId} ${fireTime ?? '-'} ${startedAt}`;
  return { scheduleId, runId, fireTime, startedAt, member };
}

export function parseMember(member: string): InFlight | null {
  const [runId, scheduleId, fire, startedAt, extra] = member.split(' ');
  if (!runId || !scheduleId || !fire || !startedAt || extra !== undefined) return null;
  const fireTime = fire === '-' ? null : Number(fire);
  if (fireTime !== null && !Number.isSafeInteger(fireTime)) return null;
  return { scheduleId, runId, fireTime, startedAt, member };
}
