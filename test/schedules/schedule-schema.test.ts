import { describe, expect, it } from 'vitest';
import {
  createScheduleBody,
  outputTargetSchema,
  runEntrySchema,
  updateScheduleBody,
} from '../../src/schedules/schedule-schema.js';

describe('createScheduleBody', () => {
  it('needs name, cron_expr and type; trims name and cron_expr', () => {
    const parsed = createScheduleBody.parse({
      name: '  daily ',
      cron_expr: ' 0 8 * * * ',
      type: 'agent',
    });
    expect(parsed).toEqual({ name: 'daily', cron_expr: '0 8 * * *', type: 'agent' });
    expect(createScheduleBody.safeParse({ name: 'x', type: 'script' }).success).toBe(false);
  });

  it('refuses a blank name, an unknown type, and a prompt over 32 KiB', () => {
    expect(
      createScheduleBody.safeParse({ name: '   ', cron_expr: '* * * * *', type: 'script' }).success,
    ).toBe(false);
    expect(
      createScheduleBody.safeParse({ name: 'x', cron_expr: '* * * * *', type: 'shell' }).success,
    ).toBe(false);
    const prompt = 'p'.repeat(32 * 1024 + 1);
    expect(
      createScheduleBody.safeParse({ name: 'x', cron_expr: '* * * * *', type: 'agent', prompt })
        .success,
    ).toBe(false);
  });
});

describe('outputTargetSchema', () => {
  it('takes the four providers only, with a channel id of 1 to 256 characters', () => {
    for (const provider of ['discord', 'telegram', 'slack', 'webhook']) {
      expect(outputTargetSchema.safeParse({ provider, channel_id: 'c' }).success).toBe(true);
    }
    expect(outputTargetSchema.safeParse({ provider: 'email', channel_id: 'c' }).success).toBe(
      false,
    );
    expect(outputTargetSchema.safeParse({ provider: 'webhook', channel_id: '' }).success).toBe(
      false,
    );
    expect(
      outputTargetSchema.safeParse({ provider: 'webhook', channel_id: 'c'.repeat(257) }).success,
    ).toBe(false);
  });
});

describe('updateScheduleBody', () => {
  it('takes any subset, and null to clear the optional fields', () => {
    expect(updateScheduleBody.parse({})).toEqual({});
    expect(
      updateScheduleBody.parse({ script_name: null, prompt: null, output_target: null }),
    ).toEqual({
      script_name: null,
      prompt: null,
      output_target: null,
    });
  });

  it('does not let null clear a required field', () => {
    expect(updateScheduleBody.safeParse({ name: null }).success).toBe(false);
    expect(updateScheduleBody.safeParse({ cron_expr: null }).success).toBe(false);
    expect(updateScheduleBody.safeParse({ timezone: null }).success).toBe(false);
  });
});

describe('runEntrySchema', () => {
  it('takes skipped entries with no start time, and a delivery status', () => {
    const entry = {
      id: 'r1',
      scheduled_at: '2026-01-01T08:00:00.000Z',
      started_at: null,
      finished_at: '2026-01-01T08:10:00.000Z',
      status: 'skipped',
      error: 'missed',
      output: '',
      delivery: { status: 'pending' },
    };
    expect(runEntrySchema.parse(entry)).toEqual(entry);
    expect(runEntrySchema.safeParse({ ...entry, status: 'running' }).success).toBe(false);
  });
});
