import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { keys } from '../store/keys.js';
import type { Redis } from '../store/redis.js';
import type { RunExecutor } from './run-executor.js';
import type { StoredSchedule } from './schedule-store.js';
import type { TickGroups, TickSpec } from './tick-groups.js';
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
  redis: Redis;
  groups: TickGroups;
  executor: RunExecutor;
  limiter: Limiter;
  /** The deployment's key prefix (pub/sub channels are not prefixed by ioredis). */
  prefix: string;
  /** How long a tick's claim and pending list live: longer than any redelivery of the tick. */
  retentionMs: number;
  /** Most schedules read and claimed per round trip; larger ticks are announced to all. */
  batchSize?: number;
  log: { warn(obj: object, msg: string): void };
}

/**
 * Fans a tick out: the worker that claims the tick (SET NX on group + fire time) lists the
 * group's members in a Redis list and, when they are more than it can start at once, announces
 * the tick on a pub/sub channel so every worker process takes batches from the list (LPOP count)
 * until it is empty, claiming their runs as its run slots free up. Each run is claimed with the
 * usual (id, fire time) claim, so nothing a second taker does can run a firing twice.
 */
export function createTickRunner(deps: TickRunnerDeps) {
  const { redis, limiter } = deps;
  const batchSize = deps.batchSize ?? 64;
  const self = randomBytes(8).toString('base64url');
  const channel = keys.scheduleTickChannel(deps.prefix);
  /** Drains started by announcements, awaited on close. */
  const background = new Set<Promise<void>>();

  /**
   * Takes batches of the tick's list until it is empty. The next batch is popped and read while
   * the current runs are in flight; its runs are claimed only as run slots free up, so a claimed
   * run always starts at once.
   */
  async function drain(spec: TickSpec, fireTime: number): Promise<number> {
    const list = keys.scheduleTickPending(spec.group, fireTime);
    type Taken = { rows: StoredSchedule[]; last: boolean };
    const take = async (): Promise<Taken> => {
      const ids = (await redis.lpop(list, batchSize)) ?? [];
      const rows = ids.length > 0 ? await deps.executor.readBatch(ids, spec) : [];
      return { rows, last: ids.length < batchSize };
    };
    const running: Array<Promise<void>> = [];
    let next: Promise<Taken> | null = take();
    let ready: StoredSchedule[] = [];
    for (;;) {
      if (ready.length === 0) {
        if (!next) break;
        const got: Taken = await next;
        ready = got.rows;
        next = got.last ? null : take();
        // Awaited on the next pass; a failure then ends this drain.
        next?.catch(() => undefined);
        continue;
      }
      await limiter.waitFree();
      const slots = limiter.reserve(ready.length);
      if (slots === 0) continue;
      const batch = ready.splice(0, slots);
      let started: Array<Promise<void>>;
      try {
        started = await deps.executor.startBatch(batch, fireTime);
      } catch (err) {
        limiter.release(slots);
        throw err;
      }
      limiter.release(slots - started.length);
      for (const run of started) {
        running.push(
          run
            .catch((err: Error) => deps.log.warn({ err: err.message }, 'schedule run failed'))
            .finally(() => limiter.release()),
        );
      }
    }
    await Promise.all(running);
    return running.length;
  }

  return {
    channel,
    /** A tick job of `spec`'s scheduler for `fireTime`: claim it, list its members, fan out. */
    async onTick(spec: TickSpec, fireTime: number): Promise<number> {
      const claimed = await redis.set(
        keys.scheduleTick(spec.group, fireTime),
        self,
        'PX',
        deps.retentionMs,
        'NX',
      );
      if (claimed !== 'OK') return 0;
      const ids = await deps.groups.members(spec.group);
      if (ids.length === 0) return 0;
      const list = keys.scheduleTickPending(spec.group, fireTime);
      await redis
        .multi()
        .rpush(list, ...ids)
        .pexpire(list, deps.retentionMs)
        .exec();
      if (ids.length > batchSize) {
        const message: z.infer<typeof announcement> = { ...spec, fireTime, from: self };
        await redis.publish(channel, JSON.stringify(message));
      }
      return drain(spec, fireTime);
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
      const p = drain(spec, fireTime)
        .then(() => undefined)
        .catch((err: Error) => deps.log.warn({ err: err.message }, 'tick drain failed'))
        .finally(() => background.delete(p));
      background.add(p);
    },
    async idle(): Promise<void> {
      await Promise.allSettled([...background]);
    },
  };
}

export type TickRunner = ReturnType<typeof createTickRunner>;
