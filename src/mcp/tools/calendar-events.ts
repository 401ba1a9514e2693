import ical, { type ParameterValue, type VEvent } from 'node-ical';

export interface CalendarEvent {
  title: string;
  start: Date;
  end: Date;
  allDay: boolean;
  location?: string;
  calendar: string;
}

/**
 * Events of one iCal document that overlap [from, to], recurring ones expanded (RRULE with
 * EXDATE, TZID and RECURRENCE-ID overrides, as node-ical implements them).
 */
export function eventsBetween(
  icsText: string,
  calendar: string,
  from: Date,
  to: Date,
): CalendarEvent[] {
  const components = ical.sync.parseICS(icsText);
  const out: CalendarEvent[] = [];
  for (const component of Object.values(components)) {
    if (!component || component.type !== 'VEVENT') continue;
    const event = component as VEvent;
    // Overrides are applied through their parent's `recurrences`; listing them again would duplicate.
    if (event.recurrenceid) continue;
    if (event.status === 'CANCELLED') continue;
    const instances = ical.expandRecurringEvent(event, { from, to, expandOngoing: true });
    for (const instance of instances) {
      if (instance.event.status === 'CANCELLED') continue;
      const location = text(instance.event.location);
      out.push({
        title: text(instance.summary) ?? '(no title)',
        start: instance.start,
        end: instance.end,
        allDay: instance.isFullDay,
        calendar,
        ...(location ? { location } : {}),
      });
    }
  }
  return out;
}

function text(value: ParameterValue | undefined): string | undefined {
  if (value === undefined) return undefined;
  const raw = typeof value === 'string' ? value : value.val;
  return raw.trim() || undefined;
}

/** ISO timestamp for timed events; a plain date for all-day ones (they have no time zone). */
export function formatWhen(date: Date, allDay: boolean): string {
  if (!allDay) return date.toISOString();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
