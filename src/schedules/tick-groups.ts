import type { JobsOptions, Queue } from 'bullmq';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { TickRepository } from '../store/tick-repository.js';
import type { StoredSchedule } from './schedule-records.js';

/**
 * Schedules sharing a (cron pattern, zone) fire from ONE BullMQ job scheduler, a "tick": BullMQ
 * spends ~0.6 ms of Redis time per job, so a job per schedule per firing cannot start thousands
 * of runs on a boundary within a second. A group is a set of enabled schedule ids keyed by a
 * hash of the pair; its tick scheduler exists exactly while the set is non-empty.
 */

export const tickJobName = 'tick';

/** Data of every tick job (the scheduler's template); the fire time is the job's prevMillis. */
export const tickPayload = z.object({ group: z.string(), pattern: z.string(), tz: z.string() });
export type TickSpec = z.infer<typeof tickPayload>;

/** Tick jobs are bookkeeping too: keep few. */
export const tickJobOptions: JobsOptions = {
  attempts: 1,
  removeOnComplete: { age: 600, count: 200 },
  removeOnFail: { age: 24 * 3600, count: 200 },
};

export function groupKeyOf(pattern: string, tz: string): string {
  return createHash('sha256').update(`${tz}\n${pattern}`).digest('base64url').slice(0, 16);
}

export const tickSchedulerId = (group: string) => `tick:${group}`;

/** The group `s` fires with, or null when it should not fire (absent or disabled). */
export function wantedGroup(s: StoredSchedule | null): TickSpec | null {
  if (!s || !s.enabled) return null;
  return { group: groupKeyOf(s.cron_expr, s.timezone), pattern: s.cron_expr, tz: s.timezone };
}

export type TickChange = 'upserted' | 'removed' | 'same';

export interface TickGroupsDeps {
  ticks: TickRepository;
  queue: Queue;
}

export function createTickGroups(deps: TickGroupsDeps) {
  const { ticks, queue } = deps;
  const joining = new Map<string, Promise<TickChange>>();

  const upsert = (spec: TickSpec) =>
    queue.upsertJobScheduler(
      tickSchedulerId(spec.group),
      { pattern: spec.pattern, tz: spec.tz },
      { name: tickJobName, data: spec, opts: tickJobOptions },
    );

  /**
   * Makes the tick scheduler of `group` match its set: removed when empty, created when missing.
   * The common cases need no lock: a non-empty group is left alone by a leaver, and a joiner
   * (already in the set) that sees the scheduler is done, because a remover re-checks the set
   * after removing and puts the scheduler back (from the group's recorded spec) when someone
   * joined meanwhile. Removal and creation run under the group's lock.
   */
  async function ensureTick(group: string, spec: TickSpec | null): Promise<TickChange> {
    const id = tickSchedulerId(group);
    const size = () => ticks.size(group);
    if (spec ? await queue.getJobScheduler(id) : (await size()) > 0) return 'same';
    if (!spec) return locked(group, null);
    // Joins of one group that need the lock together in this process share it: a burst of
    // creates with a new pattern would otherwise queue hundreds of callers on the lock (each
    // polling it) to learn that the first one created the scheduler. Sharing is safe because
    // each caller joined the set before its own check above, and a section in flight or a
    // later remover sees that member.
    let shared = joining.get(group);
    if (!shared) {
      shared = locked(group, spec).finally(() => joining.delete(group));
      joining.set(group, shared);
    }
    return shared;
  }

  /** Removal and creation of `group`'s scheduler, under the group's lock. */
  function locked(group: string, spec: TickSpec | null): Promise<TickChange> {
    const id = tickSchedulerId(group);
    const size = () => ticks.size(group);
    return ticks.withGroupLock(group, async () => {
      if ((await size()) > 0) {
        if (await queue.getJobScheduler(id)) return 'same';
        const recorded = spec ?? (await specOf(group));
        if (!recorded) return 'same';
        await upsert(recorded);
        return 'upserted';
      }
      if (!(await queue.removeJobScheduler(id))) return 'same';
      await ticks.forgetIfEmpty(group);
      const joined = (await size()) > 0 ? await specOf(group) : null;
      if (joined) await upsert(joined);
      return joined ? 'same' : 'removed';
    });
  }

  async function specOf(group: string): Promise<TickSpec | null> {
    const recorded = await ticks.specOf(group);
    return recorded === null ? null : tickPayload.parse(recorded);
  }

  return {
    ensureTick,
    /**
     * Moves schedule `id` into the group `s` wants (none when disabled or deleted) and fixes the
     * tick schedulers of the groups it left and joined. Callers hold the schedule's lock, which
     * is what makes the read-then-move below safe.
     */
    async place(id: string, s: StoredSchedule | null): Promise<TickChange> {
      const want = wantedGroup(s);
      const current = await ticks.groupOf(id);
      await ticks.move(id, current, want);
      let change: TickChange = 'same';
      if (current !== null && current !== want?.group) change = await ensureTick(current, null);
      if (want) {
        const joined = await ensureTick(want.group, want);
        if (joined !== 'same') change = joined;
      }
      return change;
    },
    /** schedule id → group, as recorded. */
    assignments: () => ticks.assignments(),
    members: (group: string) => ticks.members(group),
  };
}

export type TickGroups = ReturnType<typeof createTickGroups>;
