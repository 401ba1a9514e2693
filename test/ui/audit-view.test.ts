import { describe, expect, it } from 'vitest';
import { actorLabel, auditQuery, entryLink, noFilters } from '../../ui/src/audit-view.js';

/** How the Activity screen reads audit entries: links, actors, the query it sends. */
describe('audit entries on the Activity screen', () => {
  it('links an entry to the script or schedule it concerns, and nothing else', () => {
    const e = (action: string, target: string, actor = 'admin') =>
      entryLink({ action, target, actor });
    expect(e('script.approve', 'a-b.star')).toBe('/scripts/a-b.star');
    expect(e('tool.script_run', 'weather', 'ai')).toBe('/scripts/weather.star');
    expect(e('tool.script_run', '../etc', 'ai')).toBeNull();
    expect(e('schedule.update', 'sch_1')).toBe('/schedules/sch_1');
    expect(e('schedule.deliver', 'telegram:42', 'schedule:sch_9')).toBe('/schedules/sch_9');
    expect(e('secret.set', 'KEY')).toBeNull();
    expect(e('auth.login', '')).toBeNull();
  });

  it('names who acted in words', () => {
    expect(actorLabel('mcp')).toBe('the AI');
    expect(actorLabel('filesystem')).toBe('a file on disk');
    expect(actorLabel('schedule:sch_1')).toBe('schedule sch_1');
    expect(actorLabel('admin')).toBe('admin');
  });

  it('sends only the filters set, times as UTC instants, and the cursor', () => {
    expect(auditQuery(noFilters)).toBe('/api/audit?limit=50');
    const q = new URL(
      auditQuery(
        { ...noFilters, action: ' script ', channel: 'ui', since: '2026-01-02T03:04' },
        '17-0',
      ),
      'http://x',
    ).searchParams;
    expect(q.get('action')).toBe('script');
    expect(q.get('channel')).toBe('ui');
    expect(q.get('since')).toBe(new Date('2026-01-02T03:04').toISOString());
    expect(q.get('cursor')).toBe('17-0');
    expect(q.has('actor')).toBe(false);
  });
});
