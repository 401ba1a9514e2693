import { describe, expect, it } from 'vitest';
import { DeliveryError } from '../../../src/errors/delivery-error.js';
import {
  createDeliveryProcessor,
  type DeliveryJob,
} from '../../../src/schedules/delivery/delivery-processor.js';
import type {
  DeliveryMessage,
  ProviderRegistry,
} from '../../../src/schedules/delivery/provider.js';
import type { StoredSchedule } from '../../../src/schedules/schedule-records.js';
import type { RunEntry } from '../../../src/schedules/schedule-schema.js';
import { memoryTrail } from '../../support/trail.js';

const payload = {
  scheduleId: 's1',
  runId: 'r1',
  provider: 'webhook',
  channelId: 'ops',
  status: 'success',
  output: 'done',
  at: '2026-01-01T08:00:01.000Z',
};

/** The processor over providers of the test, recording what it writes into the run entry. */
function setup(providers: ProviderRegistry, scheduleName: string | null = 'daily') {
  const recorded: Array<{ id: string; runId: string; delivery: RunEntry['delivery'] }> = [];
  const trail = memoryTrail();
  const process = createDeliveryProcessor({
    providers,
    runState: {
      setDelivery: async (id: string, runId: string, delivery: object) => {
        recorded.push({ id, runId, delivery: delivery as RunEntry['delivery'] });
      },
      deliveryStatus: async (_id: string, runId: string) =>
        recorded.findLast((r) => r.runId === runId)?.delivery?.status ?? '',
    },
    store: {
      get: async (id: string) =>
        scheduleName ? ({ id, name: scheduleName } as StoredSchedule) : null,
    },
    trail,
  });
  const job = (attemptsMade = 0, attempts = 3, data: unknown = payload): DeliveryJob => ({
    data,
    attemptsMade,
    opts: { attempts },
  });
  return { process, job, recorded, trail };
}

function failing(err: Error): ProviderRegistry {
  return {
    webhook: {
      deliver: async () => {
        throw err;
      },
    },
  };
}

describe('delivery processor', () => {
  it('sends the run through its provider with the schedule name, then records success', async () => {
    const sent: Array<[string, DeliveryMessage]> = [];
    const { process, job, recorded, trail } = setup({
      webhook: { deliver: async (channel, message) => void sent.push([channel, message]) },
    });
    await process(job());
    expect(sent).toEqual([
      [
        'ops',
        {
          deliveryId: 'r1:webhook:ops',
          scheduleId: 's1',
          scheduleName: 'daily',
          runId: 'r1',
          status: 'success',
          error: '',
          output: 'done',
          at: payload.at,
        },
      ],
    ]);
    expect(recorded).toEqual([{ id: 's1', runId: 'r1', delivery: { status: 'delivered' } }]);
    expect(trail.events).toEqual([
      {
        actor: 'schedule:s1',
        channel: 'schedule',
        action: 'schedule.deliver',
        target: 'webhook:ops',
        outcome: 'ok',
        details: { run: 'r1', status: 'delivered' },
      },
    ]);
  });

  it('names a deleted schedule by its id', async () => {
    const sent: DeliveryMessage[] = [];
    const { process, job } = setup(
      { webhook: { deliver: async (_c, m) => void sent.push(m) } },
      null,
    );
    await process(job());
    expect(sent[0]?.scheduleName).toBe('s1');
  });

  it('records a provider that is not configured as an error, without retrying', async () => {
    const { process, job, recorded } = setup({});
    await process(job(0, 5, { ...payload, provider: 'telegram' }));
    expect(recorded).toEqual([
      { id: 's1', runId: 'r1', delivery: { status: 'failed', error: 'provider not configured' } },
    ]);
  });

  it('rethrows a transient failure before the last attempt so that the queue retries', async () => {
    const { process, job, recorded } = setup(failing(new Error('connection reset')));
    await expect(process(job(0, 3))).rejects.toThrow('connection reset');
    await expect(process(job(1, 3))).rejects.toThrow('connection reset');
    expect(recorded).toEqual([]);
  });

  it('records the error on the last attempt', async () => {
    const { process, job, recorded } = setup(failing(new Error('connection reset')));
    await process(job(2, 3));
    expect(recorded).toEqual([
      { id: 's1', runId: 'r1', delivery: { status: 'failed', error: 'connection reset' } },
    ]);
  });

  it('records a permanent failure at once', async () => {
    const { process, job, recorded } = setup(
      failing(new DeliveryError('no URL for channel', true)),
    );
    await process(job(0, 3));
    expect(recorded[0]?.delivery).toEqual({ status: 'failed', error: 'no URL for channel' });
  });

  it('refuses a job whose payload does not match the contract', async () => {
    const { process, job, recorded } = setup({});
    await expect(process(job(0, 1, { scheduleId: 's1' }))).rejects.toThrow();
    expect(recorded).toEqual([]);
  });
});
