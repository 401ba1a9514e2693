import { CronExpressionParser } from 'cron-parser';

/**
 * Cron validation and fire-time arithmetic. BullMQ pins its own cron-parser for firing; this one
 * (the same major version) validates on write and computes missed firings on recovery.
 */

/** Throws an Error whose message says what is wrong with `expr`, or returns normally. */
export function assertValidCron(expr: string, timezone: string): void {
  const fields = expr.trim().split(/\s+/).filter(Boolean);
  // cron-parser fills in missing fields and expands macros; the API promises 5 or 6 fields only.
  if (fields.length !== 5 && fields.length !== 6) {
    throw new Error(
      `invalid cron expression "${expr}": expected 5 fields (minute hour day-of-month month day-of-week) or 6 (with seconds first), got ${fields.length}`,
    );
  }
  try {
    // next() proves the expression can fire at all (e.g. "0 0 30 2 *" never does).
    CronExpressionParser.parse(fields.join(' '), { tz: timezone }).next();
  } catch (err) {
    throw new Error(`invalid cron expression "${expr}": ${(err as Error).message}`);
  }
}

export function assertValidTimezone(timezone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw new Error(`unknown time zone "${timezone}": expected an IANA name such as Europe/Paris`);
  }
}

/**
 * Fire times in `(after, now]`, newest first, at most `limit` of them (the newest ones), plus
 * whether older ones were left out.
 */
export function firesBetween(
  expr: string,
  timezone: string,
  after: number,
  now: number,
  limit = 1000,
): { fires: number[]; truncated: boolean } {
  // prev() is strictly before currentDate: start just after `now` so a fire exactly at now counts.
  const it = CronExpressionParser.parse(expr, { tz: timezone, currentDate: new Date(now + 1) });
  const fires: number[] = [];
  while (fires.length < limit) {
    let t: number;
    try {
      t = it.prev().getTime();
    } catch {
      return { fires, truncated: false };
    }
    if (t <= after) return { fires, truncated: false };
    fires.push(t);
  }
  return { fires, truncated: true };
}
