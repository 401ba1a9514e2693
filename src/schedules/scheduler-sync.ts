import type { JobsOptions, Queue } from 'bullmq';
import { randomBytes } from 'node:crypto';
import { queues } from '../queue/definitions.js';
import type { TickRepository } from '../store/tick-repository.js';
import { firesBetween } from './cron.js';
import type { RunState, ScheduleStore, StoredSchedule } from './schedule-records.js';
import { createTickGroups, tickSchedulerId, wantedGroup, type TickChange } from './tick-groups.js';

/** Finished schedule-run jobs are only bookkeeping: the run history lives on the schedule. */
export const scheduleJobOptions: JobsOptions = {
  attempts: 1,
  removeOnComplete: { age: 600, count: 1000 },
  removeOnFail: { age: 24 * 3600, count: 1000 },
};

export interface SchedulerSyncDeps {
  queue: Queue;
  store: Pick<ScheduleStore, 'get' | 'list' | 'withLock'>;
  runState: Pick<RunState, 'skip'>;
  ticks: TickRepository;
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
 * Keeps BullMQ's job schedulers equal to the store: one tick scheduler per (cron pattern, zone)
 * that some enabled schedule uses (see tick-groups.ts). Single syncs hold the schedule's lock and
 * read it fresh, so concurrent mutations converge on the last written state whatever order their
 * syncs run in.
 */
export function createSchedulerSync(deps: SchedulerSyncDeps) {
  const { queue, store } = deps;
  const groups = createTickGroups({ ticks: deps.ticks, queue });

  /** Puts `id` in the group `s` wants (null: none) and fixes the tick schedulers. Callers lock. */
  async function apply(id: string, s: StoredSchedule | null): Promise<TickChange> {
    return groups.place(id, s);
  }

  async function syncOne(id: string) {
    return store.withLock(id, async () => apply(id, await store.get(id)));
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
    groups,
    syncOne,
    /**
     * Run by each worker as it starts, one replica at a time: group memberships are fixed, tick
     * schedulers the store wants and BullMQ lacks are upserted, orphans removed, and firings
     * missed while no worker ran are caught up or recorded as skipped.
     */
    async reconcile(now = Date.now()): Promise<ReconcileReport> {
      return deps.ticks.withReconcileLock(
        async () => {
          const report: ReconcileReport = { upserted: 0, removed: 0, caughtUp: 0, skipped: 0 };
          // Schedulers first, store second: a scheduler seen here was written after its store row.
          const existing = new Set((await queue.getJobSchedulers(0, -1)).map((js) => js.key));
          const placed = await groups.assignments();
          const schedules = await store.list();
          const wantedTicks = new Set<string>();
          const count = (change: TickChange) => {
            if (change === 'upserted') report.upserted++;
            if (change === 'removed') report.removed++;
          };
          for (const s of schedules) {
            const want = wantedGroup(s);
            if (want) wantedTicks.add(tickSchedulerId(want.group));
            const misplaced = (placed.get(s.id) ?? null) !== (want?.group ?? null);
            if (misplaced || (want && !existing.has(tickSchedulerId(want.group)))) {
              count(await syncOne(s.id));
              if (want) existing.add(tickSchedulerId(want.group));
            }
            placed.delete(s.id);
          }
          // Recorded members whose schedule row is gone.
          for (const id of placed.keys()) count(await syncOne(id));
          for (const key of existing) {
            if (wantedTicks.has(key)) continue;
            // Per-schedule schedulers of the earlier design are orphans too.
            if (!key.startsWith(tickSchedulerId(''))) {
              if (await queue.removeJobScheduler(key)) report.removed++;
            } else {
              count(await groups.ensureTick(key.slice(tickSchedulerId('').length), null));
            }
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
