import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { keys } from '../store/keys.js';
import { firesBetween } from './cron.js';
import type { Redis } from '../store/redis.js';
import type { RunExecutor } from './run-executor.js';
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

/**
 * KEYS: tick claim, group set, pending set. ARGV: claimer, retention. Claims the tick once and
 * copies the group's members into its pending set; -1 when already claimed.
 */
const claimTickLua = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return -1 end
local n = redis.call('SUNIONSTORE', KEYS[3], KEYS[2])
if n > 0 then redis.call('PEXPIRE', KEYS[3], ARGV[2]) end
return n
`;
type TickClaim = (...args: string[]) => Promise<number>;

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
  const host = redis as unknown as Record<string, TickClaim | undefined>;
  if (!host.stewardTickClaim)
    redis.defineCommand('stewardTickClaim', { numberOfKeys: 3, lua: claimTickLua });
  const claimTick: TickClaim = (...args) =>
    (host.stewardTickClaim as TickClaim).call(redis, ...args);
  /** Drains started by announcements, awaited on close. */
  const background = new Set<Promise<void>>();

  /**
   * Takes batches of the tick's pending set until it is empty, each as large as the run slots
   * free at that moment: a run is claimed only when it can start at once.
   */
  async function drain(spec: TickSpec, fireTime: number): Promise<number> {
    const tick = { ...spec, pending: keys.scheduleTickPending(spec.group, fireTime) };
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
    channel,
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
      const pending = keys.scheduleTickPending(spec.group, fire);
      // The group's members are copied to the tick's pending set inside Redis: ten thousand ids
      // never travel to this process and back.
      const count = await claimTick(
        keys.scheduleTick(spec.group, fire),
        keys.scheduleGroup(spec.group),
        pending,
        self,
        String(deps.retentionMs),
      );
      if (count <= 0) return 0;
      if (due.length > 0) {
        await deps.executor.skipPassedOver(await redis.smembers(pending), [
          ...due.slice(1),
          fireTime,
        ]);
      }
      if (count > batchSize) {
        const message: z.infer<typeof announcement> = { ...spec, fireTime: fire, from: self };
        await redis.publish(channel, JSON.stringify(message));
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
