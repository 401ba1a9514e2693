import { describe, expect, it } from 'vitest';
import { assertValidCron, assertValidTimezone, firesBetween } from '../../src/schedules/cron.js';

const at = (iso: string) => Date.parse(iso);

describe('assertValidCron', () => {
  it('accepts 5 fields, and 6 with seconds first', () => {
    expect(() => assertValidCron('0 8 * * *', 'UTC')).not.toThrow();
    expect(() => assertValidCron('*/5 0 8 * * 1-5', 'Europe/Paris')).not.toThrow();
    expect(() => assertValidCron('  0   8 * *  * ', 'UTC')).not.toThrow();
  });

  it('refuses other field counts and macros, saying how many fields it got', () => {
    expect(() => assertValidCron('0 8 * *', 'UTC')).toThrow(/expected 5 fields .* got 4/);
    expect(() => assertValidCron('0 0 8 * * * 2026', 'UTC')).toThrow(/got 7/);
    expect(() => assertValidCron('@daily', 'UTC')).toThrow(/got 1/);
    expect(() => assertValidCron('', 'UTC')).toThrow(/got 0/);
  });

  it('refuses out-of-range values and expressions that never fire, naming the expression', () => {
    expect(() => assertValidCron('61 * * * *', 'UTC')).toThrow(
      /^invalid cron expression "61 \* \* \* \*": /,
    );
    expect(() => assertValidCron('0 0 30 2 *', 'UTC')).toThrow(
      /invalid cron expression "0 0 30 2 \*"/,
    );
  });
});

describe('assertValidTimezone', () => {
  it('accepts IANA names and refuses unknown ones with an example', () => {
    expect(() => assertValidTimezone('America/New_York')).not.toThrow();
    expect(() => assertValidTimezone('UTC')).not.toThrow();
    expect(() => assertValidTimezone('Mars/Olympus')).toThrow(
      'unknown time zone "Mars/Olympus": expected an IANA name such as Europe/Paris',
    );
  });
});

describe('firesBetween', () => {
  it('lists fire times in (after, now], newest first, counting a fire exactly at now', () => {
    const r = firesBetween(
      '0 * * * *',
      'UTC',
      at('2026-01-01T00:00:00Z'),
      at('2026-01-01T03:00:00Z'),
    );
    expect(r).toEqual({
      fires: [at('2026-01-01T03:00:00Z'), at('2026-01-01T02:00:00Z'), at('2026-01-01T01:00:00Z')],
      truncated: false,
    });
  });

  it('keeps only the newest `limit` fires and says older ones were left out', () => {
    const r = firesBetween(
      '* * * * *',
      'UTC',
      at('2026-01-01T00:00:00Z'),
      at('2026-01-01T01:00:00Z'),
      2,
    );
    expect(r.fires).toEqual([at('2026-01-01T01:00:00Z'), at('2026-01-01T00:59:00Z')]);
    expect(r.truncated).toBe(true);
  });

  it('is empty when nothing fired in the interval', () => {
    const r = firesBetween(
      '0 8 * * *',
      'UTC',
      at('2026-01-01T08:00:00Z'),
      at('2026-01-01T09:00:00Z'),
    );
    expect(r).toEqual({ fires: [], truncated: false });
  });

  it('computes fires in the schedule zone', () => {
    // 08:00 in Paris is 07:00 UTC in winter.
    const r = firesBetween(
      '0 8 * * *',
      'Europe/Paris',
      at('2026-01-01T00:00:00Z'),
      at('2026-01-01T12:00:00Z'),
    );
    expect(r.fires).toEqual([at('2026-01-01T07:00:00Z')]);
  });

  it('handles 6-field expressions to the second', () => {
    const r = firesBetween(
      '*/10 * * * * *',
      'UTC',
      at('2026-01-01T00:00:00Z'),
      at('2026-01-01T00:00:30Z'),
    );
    expect(r.fires).toEqual([
      at('2026-01-01T00:00:30Z'),
      at('2026-01-01T00:00:20Z'),
      at('2026-01-01T00:00:10Z'),
    ]);
  });
});
