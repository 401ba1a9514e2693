import { describe, expect, it } from 'vitest';
import { inFlightRun, parseMember } from '../../src/store/schedule-run-member.js';

const startedAt = '2026-01-01T08:00:00.123Z';

describe('running-set members', () => {
  it('writes runId, scheduleId, fire time and start time space-separated', () => {
    const run = inFlightRun({ scheduleId: 's1', runId: 'r1', fireTime: 1767254400000, startedAt });
    expect(run.member).toBe(`r1 s1 1767254400000 ${startedAt}`);
    expect(parseMember(run.member)).toEqual(run);
  });

  it('writes a manual run (no fire time) as "-" and reads it back as null', () => {
    const run = inFlightRun({ scheduleId: 's1', runId: 'r1', fireTime: null, startedAt });
    expect(run.member).toBe(`r1 s1 - ${startedAt}`);
    expect(parseMember(run.member)?.fireTime).toBeNull();
  });

  it('reads anything else as null: missing or extra parts, a fire time that is not an integer', () => {
    for (const bad of [
      '',
      'r1 s1 5',
      `r1 s1 5 ${startedAt} extra`,
      `r1 s1 5.5 ${startedAt}`,
      `r1 s1 soon ${startedAt}`,
      `r1 s1 1e400 ${startedAt}`,
      `r1  s1 5 ${startedAt}`,
    ]) {
      expect(parseMember(bad)).toBeNull();
    }
  });
});
