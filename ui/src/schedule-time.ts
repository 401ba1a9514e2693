import { CronExpressionParser } from 'cron-parser';
import cronstrue from 'cronstrue';
import { assertValidCron } from '../../src/schedules/cron.js';
import { formatDateTime } from './format-time.js';

/** The next `count` firings of `expr` in `timezone`, or the reason the expression is refused. */
export function nextFirings(
  expr: string,
  timezone: string,
  count = 5,
): { fires: Date[] } | { error: string } {
  try {
    // Steward's own check (5 or 6 fields, fires at all), so the preview refuses what the API would.
    assertValidCron(expr, timezone);
    const it = CronExpressionParser.parse(expr.trim().split(/\s+/).join(' '), { tz: timezone });
    const fires: Date[] = [];
    for (let i = 0; i < count; i++) fires.push(it.next().toDate());
    return { fires };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** "At 07:30 AM, Monday through Friday"; the expression itself when cronstrue cannot read it. */
export function cronInWords(expr: string): string {
  try {
    return cronstrue.toString(expr, { use24HourTimeFormat: true, verbose: false });
  } catch {
    return expr;
  }
}

/** A firing in the schedule's own zone, named: "2 Jan 2027, 06:30 CET". */
export function formatIn(date: Date, timezone: string): string {
  return formatDateTime(date, timezone);
}

/** IANA zones the browser knows, for the time zone picker. */
export function timeZones(): string[] {
  const supported = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] })
    .supportedValuesOf;
  const zones = supported ? supported('timeZone') : [];
  return zones.includes('UTC') ? zones : ['UTC', ...zones];
}
