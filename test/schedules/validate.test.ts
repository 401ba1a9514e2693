import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../src/errors/request-errors.js';
import { assertValidConfig } from '../../src/schedules/validate.js';
import type { ScheduleConfig } from '../../src/schedules/schedule-schema.js';

const base: ScheduleConfig = {
  name: 'daily',
  cron_expr: '0 8 * * *',
  type: 'script',
  enabled: true,
  script_name: 'report.star',
  run_once: false,
  timezone: 'UTC',
};

function refusal(config: ScheduleConfig): BadRequestError {
  try {
    assertValidConfig(config);
  } catch (err) {
    expect(err).toBeInstanceOf(BadRequestError);
    return err as BadRequestError;
  }
  throw new Error('expected a refusal');
}

describe('assertValidConfig', () => {
  it('accepts a script schedule and an agent schedule', () => {
    expect(() => assertValidConfig(base)).not.toThrow();
    const { script_name: _unused, ...rest } = base;
    expect(() => assertValidConfig({ ...rest, type: 'agent', prompt: 'Brief me' })).not.toThrow();
  });

  it('answers 400 naming body.timezone first, then body.cron_expr', () => {
    expect(refusal({ ...base, timezone: 'Nowhere/City', cron_expr: 'bad' }).message).toMatch(
      /^body\.timezone: unknown time zone "Nowhere\/City"/,
    );
    const cron = refusal({ ...base, cron_expr: '0 8 * *' });
    expect(cron.message).toMatch(/^body\.cron_expr: invalid cron expression/);
    expect(cron.status).toBe(400);
  });

  it('requires a valid script name for script schedules', () => {
    const { script_name: _unused, ...noScript } = base;
    expect(refusal(noScript).message).toBe('body.script_name: required when type is script');
    expect(refusal({ ...base, script_name: '../etc/passwd' }).message).toMatch(
      /^body\.script_name: expected a script name/,
    );
  });

  it('requires a non-blank prompt for agent schedules', () => {
    const agent: ScheduleConfig = { ...base, type: 'agent' };
    expect(refusal(agent).message).toBe('body.prompt: required when type is agent');
    expect(refusal({ ...agent, prompt: '   ' }).message).toBe(
      'body.prompt: required when type is agent',
    );
  });
});
