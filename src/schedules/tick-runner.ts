import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { TickRepository } from '../store/tick-repository.js';
import { firesBetween } from './cron.js';
import type { RunExecutor } from './run-executor.js';
import type { TickSpec } from './tick-groups.js';
import { tickPayload } from './tick-groups.js';

/** Bounds the runs in flight in one process; slots are reserved before work is taken. */
export function createLimiter(size: number) {
  let active = 0;
  const waiters: Array<() => void> = [];
  return {
    /** Resolves once at least one slot is free. */
    async waitFree(): Promise<void> {
      while (active >= size) await new Promise<void>((r) => waiters.push(r));
    },
    /** Takes up to `max` free slots at once (synchronously, so no other taker interleaves). */
    reserve(max: number): number {
      const n = Math.max(0, Math.min(max, size - active));
      active += n;
      return n;
    },
    release(n = 1): void {
      active -= n;
      for (const wake of waiters.splice(0, n)) wake();
    },
    async run<T>(fn: () => Promise<T>): Promise<T> {
      for (;;) {
        await this.waitFree();
        if (this.reserve(1) === 1) break;
      }
      try {
        return await fn();
      } finally {
        this.release();
      }
    },
  };
}
export type Limiter = ReturnType<typeof createLimiter>;

const announcement = tickPayload.extend({ fireTime: z.number().int(), from: z.string() });

export interface TickRunnerDeps {
  ticks: Pick<TickRepository, 'channel' | 'claimTick' | 'pending' | 'announce' | 'overdueTicks'>;
  executor: RunExecutor;
  limiter: Limiter;
  /** How long a tick's claim and pending list live: longer than any redelivery of the tick. */
  retentionMs: number;
  /** Most schedules read and claimed per round trip; larger ticks are announced to all. */
  batchSize?: number;
  log: { warn(obj: object, msg: string): void };
}

/**
 * Fans a tick out: the worker that claims the tick (SET NX on group + fire time) lists the
 * group's members in a Redis set and, when they are more than it can start at once, announces
 * the tick on a pub/sub channel so every worker process takes batches from the set (SPOP count)
 * until it is empty, claiming their runs as its run slots free up. Each run is claimed with the
 * usual (id, fire time) claim, so nothing a second taker does can run a firing twice.
 */
export function createTickRunner(deps: TickRunnerDeps) {
  const { ticks, limiter } = deps;
  const batchSize = deps.batchSize ?? 64;
  const self = randomBytes(8).toString('base64url');
  /** Drains started by announcements and recoveries, by tick, awaited on close. */
  const background = new Map<string, Promise<void>>();

  /** Drains a tick in the background, unless this process drains it already. */
  function drainInBackground(spec: TickSpec, fireTime: number): void {
    const key = `${fireTime} ${spec.group}`;
    if (background.has(key)) return;
    const p = drain(spec, fireTime)
      .then(() => undefined)
      .catch((err: Error) => deps.log.warn({ err: err.message }, 'tick drain failed'))
      .finally(() => background.delete(key));
    background.set(key, p);
  }

  /**
   * Takes batches of the tick's pending set until it is empty, each as large as the run slots
   * free at that moment: a run is claimed only when it can start at once.
   */
  async function drain(tick: TickSpec, fireTime: number): Promise<number> {
    const running: Array<Promise<void>> = [];
    for (;;) {
      await limiter.waitFree();
      // Runs finishing together free their slots over several callbacks of one I/O event:
      // collect them, so that one take serves them all.
      if (running.length > 0) await new Promise((r) => setImmediate(r));
      const slots = limiter.reserve(batchSize);
      if (slots === 0) continue;
      let taken: Awaited<ReturnType<RunExecutor['takeBatch']>>;
      try {
        taken = await deps.executor.takeBatch(tick, fireTime, slots);
      } catch (err) {
        limiter.release(slots);
        throw err;
      }
      limiter.release(slots - taken.started.length);
      for (const run of taken.started) {
        running.push(
          run
            .catch((err: Error) => deps.log.warn({ err: err.message }, 'schedule run failed'))
            .finally(() => limiter.release()),
        );
      }
      if (taken.remaining === 0) break;
    }
    await Promise.all(running);
    return running.length;
  }

  return {
    channel: ticks.channel,
    /**
     * A tick job of `spec`'s scheduler for `fireTime`: claim it, list its members, fan out.
     * BullMQ makes a scheduler's next job for the first fire time after the current job is
     * picked up, so when that is late (no worker was running, or all were busy) the fire times
     * in between get no job at all: the newest one due runs in this tick's place, and the ones
     * passed over are recorded as skipped, as missed firings are.
     */
    async onTick(spec: TickSpec, fireTime: number, now = Date.now()): Promise<number> {
      const { fires: due } = firesBetween(spec.pattern, spec.tz, fireTime, now);
      const fire = due[0] ?? fireTime;
      // The group's members are copied to the tick's pending set inside Redis: ten thousand ids
      // never travel to this process and back.
      const count = await ticks.claimTick(spec, fire, self, deps.retentionMs);
      if (count <= 0) return 0;
      if (due.length > 0) {
        await deps.executor.skipPassedOver(await ticks.pending(spec.group, fire), [
          ...due.slice(1),
          fireTime,
        ]);
      }
      if (count > batchSize) {
        const message: z.infer<typeof announcement> = { ...spec, fireTime: fire, from: self };
        await ticks.announce(message);
      }
      return drain(spec, fire);
    },
    /** A message on `channel`: another worker's tick has runs left to take. */
    onAnnouncement(raw: string): void {
      let parsed: z.infer<typeof announcement>;
      try {
        parsed = announcement.parse(JSON.parse(raw));
      } catch {
        return;
      }
      if (parsed.from === self) return;
      const { fireTime, from: _from, ...spec } = parsed;
      drainInBackground(spec, fireTime);
    },
    /**
     * Drains ticks claimed at least `graceMs` ago whose pending set no take has emptied: their
     * claimer died between the claim and its takes (or is slow, and gets help). Safe in every
     * worker at once: a take pops and claims each schedule atomically, so a firing still runs
     * once, late (within `schedules.misfire_window`; later, it is recorded as skipped).
     */
    async recoverOpen(graceMs: number, now = Date.now()): Promise<number> {
      const open = await ticks.overdueTicks(now - graceMs, now);
      for (const { tick, fireTime } of open) drainInBackground(tick, fireTime);
      return open.length;
    },
    async idle(): Promise<void> {
      await Promise.allSettled([...background.values()]);
    },
  };
}

export type TickRunner = ReturnType<typeof createTickRunner>;
