import { describe, expect, it } from 'vitest';
import {
  deliveryPayload,
  queues,
  scheduleRunPayload,
  type QueueKey,
} from '../../src/queue/definitions.js';
import { runOutcome, scriptRunPayload } from '../../src/queue/script-runs.js';

describe('queue definitions', () => {
  it('name every queue Steward uses, each with a distinct name', () => {
    const names = (Object.keys(queues) as QueueKey[]).map((k) => queues[k].name);
    expect(names).toEqual(['script-runs', 'schedule-runs', 'deliveries']);
  });

  it('take the script-runs contract from its own module', () => {
    expect(queues.scriptRuns.payload).toBe(scriptRunPayload);
    expect(queues.scriptRuns.result).toBe(runOutcome);
  });

  it('accept any result of the schedule and delivery queues', () => {
    for (const value of [undefined, null, 1, 'x', { a: 1 }]) {
      expect(queues.scheduleRuns.result.safeParse(value).success).toBe(true);
      expect(queues.deliveries.result.safeParse(value).success).toBe(true);
    }
  });
});

describe('scheduleRunPayload', () => {
  it('takes a fire time in whole epoch ms, or null for a manual run', () => {
    expect(scheduleRunPayload.parse({ scheduleId: 's1', fireTime: 1_700_000_000_000 })).toEqual({
      scheduleId: 's1',
      fireTime: 1_700_000_000_000,
    });
    expect(scheduleRunPayload.parse({ scheduleId: 's1', fireTime: null }).fireTime).toBeNull();
  });

  it('refuses a missing or fractional fire time and a missing schedule id', () => {
    expect(scheduleRunPayload.safeParse({ scheduleId: 's1' }).success).toBe(false);
    expect(scheduleRunPayload.safeParse({ scheduleId: 's1', fireTime: 1.5 }).success).toBe(false);
    expect(scheduleRunPayload.safeParse({ fireTime: null }).success).toBe(false);
  });
});

describe('deliveryPayload', () => {
  const valid = {
    scheduleId: 's1',
    runId: 'r1',
    provider: 'telegram',
    channelId: '42',
    status: 'success',
    error: '',
    output: 'done',
    at: '2026-01-01T00:00:00.000Z',
  };

  it('accepts a delivery of a success or an error', () => {
    expect(deliveryPayload.parse(valid)).toEqual(valid);
    // Jobs queued before `error` existed read as having none.
    const { error: _none, ...older } = valid;
    expect(deliveryPayload.parse(older).error).toBe('');
    expect(deliveryPayload.parse({ ...valid, status: 'error' }).status).toBe('error');
  });

  it('refuses another status and any missing field', () => {
    expect(deliveryPayload.safeParse({ ...valid, status: 'pending' }).success).toBe(false);
    for (const field of Object.keys(valid).filter((f) => f !== 'error')) {
      const partial: Record<string, unknown> = { ...valid };
      delete partial[field];
      expect(deliveryPayload.safeParse(partial).success, field).toBe(false);
    }
  });

  it('drops fields it does not know, so a foreign job carries nothing extra to the processor', () => {
    expect(deliveryPayload.parse({ ...valid, extra: 'x' })).not.toHaveProperty('extra');
  });
});
