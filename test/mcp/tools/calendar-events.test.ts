import { describe, expect, it } from 'vitest';
import { eventsBetween, formatWhen } from '../../../src/mcp/tools/calendar-events.js';

const calendar = (...events: string[][]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//t//EN', ...events.flat(), 'END:VCALENDAR', ''].join(
    '\r\n',
  );
const event = (uid: string, ...lines: string[]) => [
  'BEGIN:VEVENT',
  `UID:${uid}`,
  'DTSTAMP:20250101T000000Z',
  ...lines,
  'END:VEVENT',
];

const jan = (day: number, hour = 0) => new Date(Date.UTC(2025, 0, day, hour));
const titles = (events: Array<{ title: string }>) => events.map((e) => e.title);

describe('eventsBetween', () => {
  it('keeps the events overlapping the range, including one that started before it', () => {
    const ics = calendar(
      event('a', 'DTSTART:20250105T100000Z', 'DTEND:20250105T110000Z', 'SUMMARY:Before'),
      event('b', 'DTSTART:20250109T230000Z', 'DTEND:20250110T010000Z', 'SUMMARY:Overlapping'),
      event('c', 'DTSTART:20250112T100000Z', 'DTEND:20250112T110000Z', 'SUMMARY:Inside'),
      event('d', 'DTSTART:20250120T100000Z', 'DTEND:20250120T110000Z', 'SUMMARY:After'),
    );
    expect(titles(eventsBetween(ics, 'work', jan(10), jan(15)))).toEqual(['Overlapping', 'Inside']);
  });

  it('tags events with their calendar and reads location and title', () => {
    const ics = calendar(
      event(
        'a',
        'DTSTART:20250110T100000Z',
        'DTEND:20250110T110000Z',
        'SUMMARY:  Dentist  ',
        'LOCATION:Main St 1',
      ),
      event('b', 'DTSTART:20250110T120000Z', 'DTEND:20250110T130000Z', 'LOCATION:   '),
    );
    expect(eventsBetween(ics, 'home', jan(10), jan(11))).toEqual([
      {
        title: 'Dentist',
        start: jan(10, 10),
        end: jan(10, 11),
        allDay: false,
        location: 'Main St 1',
        calendar: 'home',
      },
      {
        title: '(no title)',
        start: jan(10, 12),
        end: jan(10, 13),
        allDay: false,
        calendar: 'home',
      },
    ]);
  });

  it('leaves out cancelled events and cancelled occurrences', () => {
    const ics = calendar(
      event(
        'a',
        'DTSTART:20250110T100000Z',
        'DTEND:20250110T110000Z',
        'SUMMARY:Off',
        'STATUS:CANCELLED',
      ),
      event(
        'w',
        'DTSTART:20250106T090000Z',
        'DTEND:20250106T093000Z',
        'RRULE:FREQ=DAILY;COUNT=3',
        'SUMMARY:Daily',
      ),
      event(
        'w',
        'RECURRENCE-ID:20250107T090000Z',
        'DTSTART:20250107T090000Z',
        'DTEND:20250107T093000Z',
        'SUMMARY:Daily',
        'STATUS:CANCELLED',
      ),
    );
    const found = eventsBetween(ics, 'c', jan(1), jan(31));
    expect(found.map((e) => e.start.toISOString())).toEqual([
      '2025-01-06T09:00:00.000Z',
      '2025-01-08T09:00:00.000Z',
    ]);
  });

  it('marks all-day events and formats them as plain dates', () => {
    const ics = calendar(
      event('h', 'DTSTART;VALUE=DATE:20250110', 'DTEND;VALUE=DATE:20250111', 'SUMMARY:Holiday'),
    );
    const [holiday] = eventsBetween(ics, 'c', jan(9), jan(12));
    expect(holiday?.allDay).toBe(true);
    expect(formatWhen(holiday?.start as Date, true)).toBe('2025-01-10');
  });

  it('finds nothing in a calendar without events or in text that is not one', () => {
    expect(eventsBetween(calendar(), 'c', jan(1), jan(31))).toEqual([]);
    expect(eventsBetween('not a calendar at all', 'c', jan(1), jan(31))).toEqual([]);
  });
});

describe('formatWhen', () => {
  it('gives timed events as UTC timestamps', () => {
    expect(formatWhen(new Date('2025-03-30T07:00:00+02:00'), false)).toBe(
      '2025-03-30T05:00:00.000Z',
    );
  });
});
