import { keys } from './keys.js';
import { callLua } from './lua-commands.js';
import type { Redis } from './redis.js';
import { openTickMember, parseOpenTick, type TickOfRuns } from './schedule-run-batches.js';
import { withLock, type LockTiming } from './with-lock.js';

/**
 * Tick groups and ticks in Redis. Every enabled schedule is a member of the set of its (cron
 * pattern, zone) group, `schedules:by-pattern:<group>`, recorded per schedule in
 * `schedules:group-of`, with the group's spec (the tick job's data) in `schedules:group-specs`
 * while it has members. A tick (a group's fire time) is claimed once, `schedules:tick:<group>:
 * <fire time>`, and its members are copied into `…:pending`, which workers take batches from.
 */

/** A group's recorded spec: the tick job's data. */
export interface GroupSpec {
  group: string;
  pattern: string;
  tz: string;
}

export function createTickRepository(redis: Redis) {
  // Pub/sub channels are not prefixed by ioredis: the channel carries the key prefix itself.
  const channel = keys.scheduleTickChannel(redis.options.keyPrefix ?? '');

  return {
    /** The channel on which a tick with runs left to take is announced to every worker. */
    channel,
    /** The group schedule `id` is recorded in, or null. */
    groupOf(id: string): Promise<string | null> {
      return redis.hget(keys.scheduleGroupOf(), id);
    },
    /**
     * Moves schedule `id` from group `from` (null: none) into `to` (null: none), in one MULTI;
     * a joiner writes its group's spec with its SADD.
     */
    async move(id: string, from: string | null, to: GroupSpec | null): Promise<void> {
      const tx = redis.multi();
      if (from !== null && from !== to?.group) tx.srem(keys.scheduleGroup(from), id);
      if (to) {
        tx.sadd(keys.scheduleGroup(to.group), id).hset(keys.scheduleGroupOf(), id, to.group);
        tx.hset(keys.scheduleGroupSpecs(), to.group, JSON.stringify(to));
      } else {
        tx.hdel(keys.scheduleGroupOf(), id);
      }
      await tx.exec();
    },
    size(group: string): Promise<number> {
      return redis.scard(keys.scheduleGroup(group));
    },
    /** The group's recorded spec as written (JSON-parsed), or null. */
    async specOf(group: string): Promise<unknown> {
      const raw = await redis.hget(keys.scheduleGroupSpecs(), group);
      return raw === null ? null : (JSON.parse(raw) as unknown);
    },
    /** Drops the group's recorded spec if its set is empty (lua/schedule-group-forget-2.lua). */
    async forgetIfEmpty(group: string): Promise<void> {
      await callLua(
        redis,
        'scheduleGroupForget',
        keys.scheduleGroup(group),
        keys.scheduleGroupSpecs(),
        group,
      );
    },
    /** schedule id → group, as recorded. */
    async assignments(): Promise<Map<string, string>> {
      return new Map(Object.entries(await redis.hgetall(keys.scheduleGroupOf())));
    },
    members(group: string): Promise<string[]> {
      return redis.smembers(keys.scheduleGroup(group));
    },
    /** Runs `fn` under the group's cluster-wide mutex (its tick scheduler's removal, creation). */
    withGroupLock<T>(group: string, fn: () => Promise<T>): Promise<T> {
      return withLock(redis, keys.scheduleGroupLock(group), fn);
    },
    /** Runs `fn` under the mutex that lets one replica at a time reconcile the schedulers. */
    withReconcileLock<T>(fn: () => Promise<T>, timing: LockTiming): Promise<T> {
      return withLock(redis, keys.schedulerLock(), fn, timing);
    },
    /**
     * Claims the tick of `group` at `fireTime` for `claimer` and copies the group's members into
     * its pending set, in one call (lua/schedule-tick-claim-4.lua): the number listed, or -1
     * when the tick was claimed already.
     */
    async claimTick(
      tick: TickOfRuns,
      fireTime: number,
      claimer: string,
      retentionMs: number,
    ): Promise<number> {
      const { group } = tick;
      return (await callLua(
        redis,
        'scheduleTickClaim',
        keys.scheduleTick(group, fireTime),
        keys.scheduleGroup(group),
        keys.scheduleTickPending(group, fireTime),
        keys.scheduleTicksOpen(),
        claimer,
        String(retentionMs),
        openTickMember(tick, fireTime),
        String(Date.now()),
      )) as number;
    },
    /**
     * Open ticks (claimed, their pending set not yet emptied by a take) claimed or last handed out
     * at or before `olderThan`, at most `limit`; each is handed to one caller per wait
     * (lua/schedule-overdue-1.lua), so sweeps in several workers share them out.
     */
    async overdueTicks(
      olderThan: number,
      now = Date.now(),
      limit = 100,
    ): Promise<Array<{ tick: TickOfRuns; fireTime: number }>> {
      const members = (await callLua(
        redis,
        'scheduleOverdue',
        keys.scheduleTicksOpen(),
        String(olderThan),
        String(now),
        String(limit),
      )) as string[];
      const open: Array<{ tick: TickOfRuns; fireTime: number }> = [];
      for (const member of members) {
        const parsed = parseOpenTick(member);
        if (parsed) open.push(parsed);
        else await redis.zrem(keys.scheduleTicksOpen(), member);
      }
      return open;
    },
    /** The schedule ids of a tick not yet taken. */
    pending(group: string, fireTime: number): Promise<string[]> {
      return redis.smembers(keys.scheduleTickPending(group, fireTime));
    },
    /** Tells every worker process that a tick has runs left to take (`message` is JSON). */
    async announce(message: object): Promise<void> {
      await redis.publish(channel, JSON.stringify(message));
    },
  };
}

export type TickRepository = ReturnType<typeof createTickRepository>;
