import { describe, expect, it } from 'vitest';
import { toResource, type StoredSchedule } from '../../src/schedules/schedule-records.js';

const stored: StoredSchedule = {
  id: 'abc',
  name: 'daily',
  cron_expr: '0 8 * * *',
  type: 'script',
  enabled: true,
  script_name: 'report.star',
  run_once: false,
  timezone: 'UTC',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-02T00:00:00.000Z',
  armed_at: 1,
  last_fire_at: 2,
  misfire_through: 3,
};

describe('toResource', () => {
  it('maps a stored schedule to the API resource without the store bookkeeping', () => {
    expect(toResource(stored, false)).toEqual({
      id: 'abc',
      name: 'daily',
      cron_expr: '0 8 * * *',
      type: 'script',
      enabled: true,
      script_name: 'report.star',
      run_once: false,
      timezone: 'UTC',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-02T00:00:00.000Z',
    });
  });

  it('with the run state adds last_run_*, with empty error and output before any run', () => {
    const fresh = toResource(stored, true);
    expect(fresh.last_run_error).toBe('');
    expect(fresh.last_run_output).toBe('');
    expect(fresh).not.toHaveProperty('last_run_at');
    expect(fresh).not.toHaveProperty('last_run_status');
    const ran = toResource(
      {
        ...stored,
        last_run_at: '2026-01-03T08:00:00.000Z',
        last_run_status: 'error',
        last_run_error: 'boom',
        last_run_output: 'log',
      },
      true,
    );
    expect(ran).toMatchObject({
      last_run_at: '2026-01-03T08:00:00.000Z',
      last_run_status: 'error',
      last_run_error: 'boom',
      last_run_output: 'log',
    });
  });

  it('carries the prompt and output target of an agent schedule', () => {
    const { script_name: _unused, ...rest } = stored;
    const agent = toResource(
      {
        ...rest,
        type: 'agent',
        prompt: 'Brief me',
        output_target: { provider: 'webhook', channel_id: 'ops' },
      } as StoredSchedule,
      false,
    );
    expect(agent).toMatchObject({
      prompt: 'Brief me',
      output_target: { provider: 'webhook', channel_id: 'ops' },
    });
    expect(agent).not.toHaveProperty('script_name');
  });
});
