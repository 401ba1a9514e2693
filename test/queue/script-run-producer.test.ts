import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import type { QueueClient } from '../../src/queue/client.js';
import { QueueTimeoutError } from '../../src/errors/queue-errors.js';
import { createScriptRunProducer } from '../../src/queue/script-run-producer.js';
import { runDeadline, type ScriptRunPayload } from '../../src/queue/script-runs.js';

const payload: ScriptRunPayload = {
  name: 'a.star',
  hash: 'sha256:' + '0'.repeat(64),
  args: {},
  origin: 'api',
  allowUnapproved: false,
};

/** A producer over a queue client whose `run` answers with `answer`. */
function producer(answer: () => Promise<unknown>) {
  const calls: number[] = [];
  const queues = {
    run: ((_key: string, _data: unknown, timeoutMs: number) => {
      calls.push(timeoutMs);
      return answer();
    }) as QueueClient['run'],
  };
  return { calls, p: createScriptRunProducer({ queues, limits: { wall_time: 1000 } }) };
}

describe('script-runs producer', () => {
  it('waits the wall limit plus the margin the worker also uses, and answers the result', async () => {
    const result = { success: true, result: { a: 1 }, duration_ms: 2, logs: [] };
    const { p, calls } = producer(async () => result);
    expect(await p.run(payload)).toBe(result);
    expect(calls).toEqual([runDeadline({ wall_time: 1000 })]);
    expect(p.deadline).toBe(6000);
  });

  it('answers a failed result when no worker answers in time or the job failed', async () => {
    const late = producer(async () => {
      throw new QueueTimeoutError(6000);
    });
    expect(await late.p.run(payload)).toMatchObject({
      success: false,
      error: 'script run gave no result within 6000 ms (no worker, or the worker died)',
      logs: [],
    });
    const failed = producer(async () => {
      throw new Error('job stalled more than allowable limit');
    });
    expect(await failed.p.run(payload)).toMatchObject({
      success: false,
      error: 'script run failed: job stalled more than allowable limit',
    });
  });

  it('reads RunLimits straight from the config schema', () => {
    const limits = configSchema.parse({ scripts: { limits: { wall_time: '2s' } } }).scripts.limits;
    expect(runDeadline(limits)).toBe(7000);
  });
});
