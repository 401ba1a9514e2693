import type { Job } from 'bullmq';
import { describe, expect, it, vi } from 'vitest';
import { configSchema } from '../../../src/config/schema.js';
import type { Logger } from '../../../src/log/logger.js';
import type { Egress } from '../../../src/net/egress.js';
import type { ScriptRunPayload } from '../../../src/queue/script-runs.js';
import { hashSource } from '../../../src/contracts/script-hashes.js';
import type { ScriptRecord } from '../../../src/contracts/script-record.js';
import type { ScriptPool } from '../../../src/workers/script-runs/pool.js';
import { createScriptRunProcessor } from '../../../src/workers/script-runs/processor.js';
import { createRecentChecks, type RecentChecks } from '../../../src/scripts/recent-checks.js';
import type { RunTask } from '../../../src/workers/script-runs/task-types.js';
import { approvedRecord, testSigner } from '../../support/script-record.js';

const source = 'def main():\n    return {"token": "tok-123"}\n';
const hash = hashSource(source);

const record = (overrides: Partial<ScriptRecord> = {}) =>
  approvedRecord('job.star', source, overrides);

/** The processor with a thread pool that only records what it was given. */
function setup(
  stored: ScriptRecord | null,
  file: string | null = source,
  recent?: Pick<RecentChecks, 'fresh'>,
  getSecret: (name: string) => Promise<string | null> = async () => null,
) {
  const tasks: RunTask[] = [];
  const reads = { record: 0, file: 0 };
  const expired: number[] = [];
  const pool: ScriptPool = {
    threads: 1,
    computeSlots: 1,
    threadsStarted: 1,
    freeComputeSlots: 1,
    admitted: 0,
    run: vi.fn(async (task: RunTask) => {
      tasks.push(task);
      return {
        success: true as const,
        result: { token: 'tok-123' },
        logs: ['printed tok-123'],
      };
    }),
    destroy: async () => {},
  };
  const limits = configSchema.parse({}).scripts.limits;
  const process = createScriptRunProcessor({
    store: { get: async () => (reads.record++, stored) },
    mirror: { hash: async () => (reads.file++, file === null ? null : hashSource(file)) },
    pool,
    signer: testSigner,
    egress: {} as Egress,
    limits,
    getSecret,
    redact: (text) => text.replaceAll('tok-123', '[REDACTED:TOKEN]'),
    log: { warn: () => {} } as unknown as Logger,
    onExpired: () => void expired.push(Date.now()),
    ...(recent ? { recent } : {}),
  });
  const job = (payload: Partial<ScriptRunPayload> = {}, age = 0) =>
    process({
      data: { name: 'job.star', hash, args: {}, origin: 'api', ...payload },
      timestamp: Date.now() - age,
    } as unknown as Job);
  return { job, tasks, limits, expired, reads };
}

describe('script-runs processor', () => {
  it('runs an approved script with the configured limits object and redacts the result', async () => {
    const { job, tasks, limits } = setup(record());
    const result = await job();
    expect(result).toMatchObject({
      success: true,
      result: { token: '[REDACTED:TOKEN]' },
      logs: ['printed [REDACTED:TOKEN]'],
    });
    expect(tasks[0]?.limits).toBe(limits);
  });

  it('is the authority on approval: refuses what changed after the caller checked', async () => {
    const edited = setup(record(), 'def main():\n    return 2\n');
    expect(await edited.job()).toMatchObject({
      success: false,
      refusal: 'modified',
      error:
        'script job.star changed since it was approved; an administrator must approve it again',
    });
    expect(edited.tasks).toHaveLength(0);

    const rejected = setup(record({ status: 'rejected' }));
    expect(await rejected.job()).toMatchObject({
      refusal: 'rejected',
      error: 'script job.star was rejected',
    });
    const pending = setup(record({ status: 'pending', approved_hash: undefined }));
    expect(await pending.job()).toMatchObject({ refusal: 'pending' });
    const changed = setup(record({ hash: hashSource('x = 1\n') }));
    expect(await changed.job()).toMatchObject({ refusal: 'modified' });
    expect(await setup(null).job()).toMatchObject({ refusal: 'not_found' });
    for (const s of [rejected, pending, changed]) expect(s.tasks).toHaveLength(0);
  });

  it('reads every secret the script declares at once, and hands the thread each by its name', async () => {
    const declaring = '# @secrets: A_KEY, B_KEY, C_KEY\ndef main():\n    return 1\n';
    const stored = { A_KEY: 'a-value', C_KEY: 'c-value' } as Record<string, string>;
    let inFlight = 0;
    let most = 0;
    const asked: string[] = [];
    const { job, tasks } = setup(
      approvedRecord('job.star', declaring),
      declaring,
      undefined,
      async (name) => {
        asked.push(name);
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setImmediate(r));
        inFlight--;
        return stored[name] ?? null;
      },
    );
    expect(await job({ hash: hashSource(declaring) })).toMatchObject({ success: true });
    expect(asked).toEqual(['A_KEY', 'B_KEY', 'C_KEY']);
    // One after another, only one would ever be waited for at a time.
    expect(most).toBe(3);
    expect(tasks[0]?.declaredSecrets).toEqual(['A_KEY', 'B_KEY', 'C_KEY']);
    expect([...(tasks[0]?.secretValues ?? [])]).toEqual([
      ['A_KEY', 'a-value'],
      ['B_KEY', null],
      ['C_KEY', 'c-value'],
    ]);
  });

  it('takes a check this process passed a moment ago instead of reading again, and still applies the rule to it', async () => {
    const clock = { now: 1_000 };
    const recent = createRecentChecks(100, () => clock.now);
    // The store and the file now say otherwise: the check noted just before is what the run uses.
    const noted = setup(record({ status: 'rejected' }), 'x = 1\n', recent);
    recent.note('job.star', { record: record(), fileHash: hash });
    expect(await noted.job()).toMatchObject({ success: true });
    expect(noted.reads).toEqual({ record: 0, file: 0 });
    expect(noted.tasks[0]?.source).toBe(source);

    // The rule is applied to what was noted, as to what is read.
    recent.note('job.star', { record: record({ status: 'rejected' }), fileHash: hash });
    expect(await noted.job()).toMatchObject({ refusal: 'rejected' });

    // Too old, or of another hash, or forgotten: read again, and refused by what is read now.
    recent.note('job.star', { record: record(), fileHash: hash });
    clock.now += 100;
    expect(await noted.job()).toMatchObject({ refusal: 'rejected' });
    expect(noted.reads).toEqual({ record: 1, file: 1 });
    recent.note('job.star', { record: record(), fileHash: hash });
    expect(await noted.job({ hash: hashSource('x = 1\n') })).toMatchObject({ refusal: 'modified' });
    recent.note('job.star', { record: record(), fileHash: hash });
    recent.forget('job.star');
    expect(await noted.job()).toMatchObject({ refusal: 'rejected' });
    expect(noted.reads).toEqual({ record: 3, file: 3 });
    expect(noted.tasks).toHaveLength(1);
  });

  it('runs an allowlisted script without approval, and drops a job its caller gave up on', async () => {
    const pending = setup(record({ status: 'pending', approved_hash: undefined }), null);
    expect(await pending.job({ allowUnapproved: true })).toMatchObject({ success: true });
    const late = setup(record());
    expect(await late.job({}, late.limits.wall_time + 6_000)).toMatchObject({
      success: false,
      error: 'script run expired before a worker picked it up',
    });
    expect(late.tasks).toHaveLength(0);
  });

  it("never starts a run after its caller's deadline, counts the drop, and ends a run by it", async () => {
    const gone = setup(record());
    expect(await gone.job({ callerDeadline: Date.now() - 1 })).toMatchObject({
      success: false,
      error: 'script run expired before a worker picked it up',
    });
    // Too close to the deadline for a result to reach the caller: not started either.
    expect(await gone.job({ callerDeadline: Date.now() + 300 })).toMatchObject({ success: false });
    expect(gone.tasks).toHaveLength(0);
    expect(gone.expired).toHaveLength(2);

    const soon = setup(record());
    const callerDeadline = Date.now() + 3_000;
    expect(await soon.job({ callerDeadline })).toMatchObject({ success: true });
    // The thread's own deadline is the caller's (less the result's travel), not the wall limit.
    expect(soon.tasks[0]?.deadline).toBeLessThanOrEqual(callerDeadline - 500);
    expect(soon.expired).toHaveLength(0);
  });
});
