import { z } from 'zod';
import { ToolError } from '../../errors/tool-error.js';
import { defineTool } from '../tool-types.js';
import { eventsBetween, formatWhen, type CalendarEvent } from './calendar-events.js';
import { decodeBody, toolFetch } from './tool-fetch.js';

const dayMs = 86_400_000;
const maxSpanDays = 366;
const maxEvents = 500;

export const calendarRead = defineTool({
  name: 'calendar_read',
  description:
    'List calendar events in a date range, sorted by start time (recurring events expanded).',
  inputSchema: z.object({
    calendar: z
      .string()
      .optional()
      .describe('Name of one configured calendar feed; all feeds when omitted'),
    from: z
      .string()
      .optional()
      .describe('Start of the range as an ISO 8601 date or date-time; now when omitted'),
    to: z
      .string()
      .optional()
      .describe('End of the range as an ISO 8601 date or date-time; from + days when omitted'),
    days: z
      .number()
      .int()
      .positive()
      .max(maxSpanDays)
      .optional()
      .describe('Length of the range in days when to is omitted (default 7)'),
  }),
  handler: async (args, ctx) => {
    const feeds = ctx.config.calendar.feeds.filter(
      (feed) => args.calendar === undefined || feed.name === args.calendar,
    );
    if (feeds.length === 0) {
      const names = ctx.config.calendar.feeds.map((feed) => feed.name).join(', ') || '(none)';
      throw new ToolError(`unknown calendar "${args.calendar}"; configured calendars: ${names}`);
    }
    const from = args.from ? parseDate(args.from, 'from') : new Date();
    const to = args.to
      ? parseDate(args.to, 'to')
      : new Date(from.getTime() + (args.days ?? 7) * dayMs);
    if (to <= from) throw new ToolError('"to" must be after "from"');
    if (to.getTime() - from.getTime() > maxSpanDays * dayMs)
      throw new ToolError(`the range may span at most ${maxSpanDays} days`);

    // Read side by side: the answer waits for the slowest feed, not for all of them in turn.
    const reads = await Promise.all(
      feeds.map(async (feed): Promise<{ events: CalendarEvent[] } | { problem: string }> => {
        try {
          const res = await toolFetch(ctx, feed.url, {
            headers: { accept: 'text/calendar, text/plain;q=0.5' },
          });
          if (res.status >= 400) throw new ToolError(`HTTP ${res.status}`);
          const text = decodeBody(res.body, res.headers['content-type']);
          return { events: eventsBetween(text, feed.name, from, to) };
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          const message = (err as Error).message;
          ctx.logger.warn({ feed: feed.name, err: message }, 'calendar feed failed');
          return { problem: `calendar "${feed.name}" could not be read: ${message}` };
        }
      }),
    );
    const events = reads.flatMap((read) => ('events' in read ? read.events : []));
    const problems = reads.flatMap((read) => ('problem' in read ? [read.problem] : []));
    if (problems.length === feeds.length) throw new ToolError(problems.join('\n'));
    events.sort((a, b) => a.start.getTime() - b.start.getTime() || a.title.localeCompare(b.title));
    const shown = events.slice(0, maxEvents);
    const lines = [`Events from ${from.toISOString()} to ${to.toISOString()}: ${events.length}`];
    for (const event of shown) {
      lines.push(
        [
          `- ${event.title}`,
          `  start: ${formatWhen(event.start, event.allDay)}`,
          `  end: ${formatWhen(event.end, event.allDay)}`,
          ...(event.location ? [`  location: ${event.location}`] : []),
          ...(feeds.length > 1 ? [`  calendar: ${event.calendar}`] : []),
        ].join('\n'),
      );
    }
    if (events.length > shown.length)
      lines.push(`[only the first ${maxEvents} events are shown; narrow the range]`);
    lines.push(...problems.map((problem) => `Note: ${problem}`));
    return lines.join('\n');
  },
});

function parseDate(text: string, field: string): Date {
  const date = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(date.getTime())) {
    throw new ToolError(
      `"${field}" must be an ISO 8601 date such as 2025-03-01 or 2025-03-01T09:00:00Z, got "${text}"`,
    );
  }
  return date;
}
