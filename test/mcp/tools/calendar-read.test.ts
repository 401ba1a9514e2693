import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarRead } from '../../../src/mcp/tools/calendar-read.js';
import { startServer, type LocalServer } from '../../net/local-server.js';
import { run, testConfig, testContext } from './tool-context.js';

const ics = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Steward tests//EN',
  'BEGIN:VEVENT',
  'UID:standup@test',
  'DTSTAMP:20250101T000000Z',
  'DTSTART;TZID=Europe/Paris:20250106T090000',
  'DTEND;TZID=Europe/Paris:20250106T093000',
  'RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=15',
  'EXDATE;TZID=Europe/Paris:20250113T090000',
  'SUMMARY:Standup',
  'LOCATION:Room 4',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:standup@test',
  'DTSTAMP:20250101T000000Z',
  'RECURRENCE-ID;TZID=Europe/Paris:20250120T090000',
  'DTSTART;TZID=Europe/Paris:20250120T110000',
  'DTEND;TZID=Europe/Paris:20250120T113000',
  'SUMMARY:Standup (moved)',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:dentist@test',
  'DTSTAMP:20250101T000000Z',
  'DTSTART:20250108T140000Z',
  'DTEND:20250108T150000Z',
  'SUMMARY:Dentist',
  'LOCATION:Main Street 1',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:outside@test',
  'DTSTAMP:20250101T000000Z',
  'DTSTART:20250301T140000Z',
  'DTEND:20250301T150000Z',
  'SUMMARY:Not in January',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

const holidays = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'BEGIN:VEVENT',
  'UID:h1@test',
  'DTSTAMP:20250101T000000Z',
  'DTSTART:20250107T080000Z',
  'DTEND:20250107T090000Z',
  'SUMMARY:Gym',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

let server: LocalServer;
/** Requests to /slow-*.ics being answered now, and the most at once. */
const slow = { inFlight: 0, most: 0 };

beforeAll(async () => {
  server = await startServer((req, res) => {
    if (req.url === '/work.ics') {
      res.setHeader('content-type', 'text/calendar; charset=utf-8');
      res.end(ics);
    } else if (req.url?.startsWith('/slow-')) {
      slow.most = Math.max(slow.most, ++slow.inFlight);
      setTimeout(() => {
        slow.inFlight--;
        res.setHeader('content-type', 'text/calendar');
        res.end(holidays.replace('SUMMARY:Gym', `SUMMARY:${req.url}`));
      }, 150);
    } else if (req.url === '/home.ics') {
      res.setHeader('content-type', 'text/calendar');
      res.end(holidays);
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
});

afterAll(() => server.close());

function ctx(feeds: Array<{ name: string; path: string }>) {
  return testContext(
    testConfig({
      'calendar.feeds': feeds.map((f) => ({ name: f.name, url: `${server.url}${f.path}` })),
    }),
  );
}

const blocks = (out: string) => out.split('\n- ').slice(1);

describe('calendar_read', () => {
  it('expands a weekly RRULE in its time zone, honouring EXDATE and an override', async () => {
    const out = await run(
      calendarRead,
      { from: '2025-01-01', to: '2025-02-01' },
      ctx([{ name: 'work', path: '/work.ics' }]),
    );
    expect(out).toMatch(/^Events from 2025-01-01T00:00:00.000Z to 2025-02-01T00:00:00.000Z: 4/);
    const events = blocks(out);
    expect(events.map((e) => e.split('\n')[0])).toEqual([
      'Standup',
      'Dentist',
      'Standup (moved)',
      'Standup',
    ]);
    expect(events[0]).toContain('start: 2025-01-06T08:00:00.000Z'); // 09:00 Paris in winter
    expect(events[0]).toContain('end: 2025-01-06T08:30:00.000Z');
    expect(events[0]).toContain('location: Room 4');
    expect(out).not.toContain('2025-01-13'); // EXDATE
    expect(events[1]).toContain('start: 2025-01-08T14:00:00.000Z');
    expect(events[1]).toContain('location: Main Street 1');
    expect(events[2]).toContain('start: 2025-01-20T10:00:00.000Z');
    expect(events[3]).toContain('start: 2025-01-27T08:00:00.000Z');
    expect(out).not.toContain('Not in January');
  });

  it('follows the time zone across daylight saving time', async () => {
    const out = await run(
      calendarRead,
      { from: '2025-03-24', days: 8 },
      ctx([{ name: 'work', path: '/work.ics' }]),
    );
    expect(out).toContain('start: 2025-03-24T08:00:00.000Z');
    expect(out).toContain('start: 2025-03-31T07:00:00.000Z'); // 09:00 Paris in summer
  });

  it('merges feeds sorted by start and can pick one by name', async () => {
    const feeds = [
      { name: 'work', path: '/work.ics' },
      { name: 'home', path: '/home.ics' },
    ];
    const all = await run(calendarRead, { from: '2025-01-06', days: 3 }, ctx(feeds));
    expect(blocks(all).map((e) => e.split('\n')[0])).toEqual(['Standup', 'Gym', 'Dentist']);
    expect(all).toContain('calendar: home');
    const home = await run(
      calendarRead,
      { calendar: 'home', from: '2025-01-06', days: 3 },
      ctx(feeds),
    );
    expect(blocks(home).map((e) => e.split('\n')[0])).toEqual(['Gym']);
    await expect(run(calendarRead, { calendar: 'nope' }, ctx(feeds))).rejects.toThrow(
      /configured calendars: work, home/,
    );
  });

  it('notes a failing feed and fails only when all fail', async () => {
    const feeds = [
      { name: 'home', path: '/home.ics' },
      { name: 'broken', path: '/missing.ics' },
    ];
    const out = await run(calendarRead, { from: '2025-01-06', days: 3 }, ctx(feeds));
    expect(out).toContain('Gym');
    expect(out).toContain('Note: calendar "broken" could not be read: HTTP 404');
    await expect(run(calendarRead, { calendar: 'broken' }, ctx(feeds))).rejects.toThrow(/HTTP 404/);
  });

  it('reads the feeds side by side', async () => {
    const feeds = ['a', 'b', 'c'].map((name) => ({ name, path: `/slow-${name}.ics` }));
    const out = await run(calendarRead, { from: '2025-01-06', days: 3 }, ctx(feeds));
    expect(blocks(out).map((e) => e.split('\n')[0])).toEqual([
      '/slow-a.ics',
      '/slow-b.ics',
      '/slow-c.ics',
    ]);
    expect(slow.most).toBe(3);
  });

  it('validates the range', async () => {
    const c = ctx([{ name: 'work', path: '/work.ics' }]);
    await expect(run(calendarRead, { from: 'next tuesday' }, c)).rejects.toThrow(/ISO 8601/);
    await expect(run(calendarRead, { from: '2025-02-01', to: '2025-01-01' }, c)).rejects.toThrow(
      /after/,
    );
  });

  it('defaults to the next 7 days', async () => {
    const out = await run(calendarRead, {}, ctx([{ name: 'work', path: '/work.ics' }]));
    const [, from, to] = /Events from (\S+) to (\S+):/.exec(out) ?? [];
    expect(new Date(to as string).getTime() - new Date(from as string).getTime()).toBe(
      7 * 86_400_000,
    );
  });
});
