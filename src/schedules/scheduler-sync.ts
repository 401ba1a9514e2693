import type { JobsOptions, Queue } from 'bullmq';
import { randomBytes } from 'node:crypto';
import { queues } from '../queue/definitions.js';
import { keys } from '../store/keys.js';
import type { Redis } from '../store/redis.js';
import { firesBetween } from './cron.js';
import type { RunState } from './run-state.js';
import type { ScheduleStore, StoredSchedule } from './schedule-store.js';
import { withLock } from './with-lock.js';

/** Finished schedule-run jobs are only bookkeeping: the run history lives on the schedule. */
export const scheduleJobOptions: JobsOptions = {
  attempts: 1,
  removeOnComplete: { age: 600, count: 1000 },
  removeOnFail: { age: 24 * 3600, count: 1000 },
};

export interface SchedulerSyncDeps {
  redis: Redis;
  queue: Queue;
  store: ScheduleStore;
  runState: RunState;
  misfireWindowMs: number;
  /** Firings younger than this are not counted as missed (the run lease is a good value). */
  graceMs: number;
}

export interface ReconcileReport {
  upserted: number;
  removed: number;
  caughtUp: number;
  skipped: number;
}

/**
 * Keeps BullMQ's job schedulers equal to the store: one scheduler per enabled schedule, keyed by
 * the schedule id. Single syncs hold the schedule's lock and read it fresh, so concurrent
 * mutations converge on the last written state whatever order their syncs run in.
 */
export function createSchedulerSync(deps: SchedulerSyncDeps) {
  const { queue, store } = deps;

  /** Makes the scheduler match `s` (null: removed). Callers hold the schedule's lock. */
  async function apply(
    id: string,
    s: StoredSchedule | null,
  ): Promise<'upserted' | 'removed' | 'same'> {
    if (!s || !s.enabled) {
      return (await queue.removeJobScheduler(id)) ? 'removed' : 'same';
    }
    const current = await queue.getJobScheduler(id);
    if (current && current.pattern === s.cron_expr && current.tz === s.timezone) return 'same';
    await queue.upsertJobScheduler(
      id,
      { pattern: s.cron_expr, tz: s.timezone },
      {
        name: queues.scheduleRuns.name,
        // The fire time is not known here: the worker reads it from the job (opts.prevMillis).
        data: { scheduleId: id, fireTime: null },
        opts: scheduleJobOptions,
      },
    );
    return 'upserted';
  }

  const lockOf = (id: string) => keys.scheduleLock(id);

  async function syncOne(id: string) {
    return withLock(deps.redis, lockOf(id), async () => apply(id, await store.get(id)));
  }

  /** Missed firings of `s` up to `now`: the newest one within the window runs, older are skipped. */
  async function catchUp(
    s: StoredSchedule,
    now: number,
  ): Promise<{ caughtUp: number; skipped: number }> {
    const after = Math.max(s.armed_at, s.last_fire_at, s.misfire_through);
    const { fires, truncated } = firesBetween(s.cron_expr, s.timezone, after, now);
    const newest = fires[0];
    if (newest === undefined) return { caughtUp: 0, skipped: 0 };
    const runNewest = now - newest <= deps.misfireWindowMs;
    // A recent firing may simply not be picked up yet by a live worker: leave it to BullMQ.
    const grace = Math.min(deps.graceMs, deps.misfireWindowMs);
    const skippedFires = (runNewest ? fires.slice(1) : fires).filter((t) => now - t > grace);
    let skipped = 0;
    const newestSkipped = skippedFires[0];
    if (newestSkipped !== undefined) {
      const oldest = skippedFires[skippedFires.length - 1] as number;
      const count = `${skippedFires.length}${truncated ? '+' : ''}`;
      const recorded = await deps.runState.skip(s.id, newestSkipped, {
        id: randomBytes(12).toString('base64url'),
        scheduled_at: new Date(newestSkipped).toISOString(),
        started_at: null,
        finished_at: new Date(now).toISOString(),
        status: 'skipped',
        error: `${count} firing(s) from ${new Date(oldest).toISOString()} to ${new Date(newestSkipped).toISOString()} were missed while no worker was running and are outside the misfire window (or superseded by a later firing)`,
        output: '',
      });
      if (recorded) skipped = skippedFires.length;
    }
    if (!runNewest) return { caughtUp: 0, skipped };
    // Same fire time as BullMQ's own job for it: the run's claim lets only one of them through.
    await queue.add(
      queues.scheduleRuns.name,
      { scheduleId: s.id, fireTime: newest },
      { ...scheduleJobOptions, jobId: `catchup-${s.id}-${newest}` },
    );
    return { caughtUp: 1, skipped };
  }

  return {
    apply,
    syncOne,
    lockOf,
    /**
     * Run by each worker as it starts, one replica at a time: schedulers the store wants and
     * BullMQ lacks (or has with another pattern) are upserted, orphans removed, and firings
     * missed while no worker ran are caught up or recorded as skipped.
     */
    async reconcile(now = Date.now()): Promise<ReconcileReport> {
      return withLock(
        deps.redis,
        keys.schedulerLock(),
        async () => {
          const report: ReconcileReport = { upserted: 0, removed: 0, caughtUp: 0, skipped: 0 };
          // Schedulers first, store second: a scheduler seen here was written after its store row.
          const existing = new Map<string, { pattern?: string | null; tz?: string | null }>();
          for (const js of await queue.getJobSchedulers(0, -1)) existing.set(js.key, js);
          const schedules = await store.list();
          const wanted = new Set<string>();
          for (const s of schedules) {
            if (!s.enabled) continue;
            wanted.add(s.id);
            const js = existing.get(s.id);
            if (!js || js.pattern !== s.cron_expr || js.tz !== s.timezone) {
              if ((await syncOne(s.id)) === 'upserted') report.upserted++;
            }
          }
          for (const key of existing.keys()) {
            if (!wanted.has(key) && (await syncOne(key)) === 'removed') report.removed++;
          }
          for (const s of schedules) {
            if (!s.enabled) continue;
            const r = await catchUp(s, now);
            report.caughtUp += r.caughtUp;
            report.skipped += r.skipped;
          }
          return report;
        },
        { lockTimeout: 60_000, acquireTimeout: 120_000 },
      );
    },
  };
}

export type SchedulerSync = ReturnType<typeof createSchedulerSync>;
