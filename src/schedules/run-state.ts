import { keys } from '../store/keys.js';
import type { Redis } from '../store/redis.js';
import { createFinishBatcher, manyCommands } from './run-batches.js';
import { singleRunCommands } from './run-lua.js';
import { runHistoryLimit, type RunTarget } from './schedule-store.js';
import type { RunEntry, RunStatus, ScheduleType } from './schedule-schema.js';

/**
 * The atomic steps of a run's life in Redis. A run is claimed once (SET NX on its fire time),
 * leased while in flight (a ZSET scored by lease deadline, renewed by the running worker) and
 * finished once (ZREM decides who finalises, so a duplicate or a sweeper can never write twice).
 * Tick runs claim in batches and all finishes are batched (run-batches.ts), with the same steps.
 */

/** What identifies a run in flight; `member` is its ZSET member and its claim's value. */
export interface InFlight {
  scheduleId: string;
  runId: string;
  /** Epoch ms of the cron fire time; null for a manual run. */
  fireTime: number | null;
  startedAt: string;
  member: string;
}

/**
 * Space-separated so the batch take script (run-batches.ts) can build the same string; no part
 * can hold a space (random base64url ids, digits, an ISO time).
 */
export function inFlightRun(run: Omit<InFlight, 'member'>): InFlight {
  const { scheduleId, runId, fireTime, startedAt } = run;
  const member = `${runId} ${scheduleId} ${fireTime ?? '-'} ${startedAt}`;
  return { scheduleId, runId, fireTime, startedAt, member };
}

export function parseMember(member: string): InFlight | null {
  const [runId, scheduleId, fire, startedAt, extra] = member.split(' ');
  if (!runId || !scheduleId || !fire || !startedAt || extra !== undefined) return null;
  const fireTime = fire === '-' ? null : Number(fire);
  if (fireTime !== null && !Number.isSafeInteger(fireTime)) return null;
  return { scheduleId, runId, fireTime, startedAt, member };
}

/** ISO text of a fire time: every run of a tick shares one. */
let lastFire: { at: number; iso: string } = { at: 0, iso: new Date(0).toISOString() };
function isoOfFire(at: number): string {
  if (lastFire.at !== at) lastFire = { at, iso: new Date(at).toISOString() };
  return lastFire.iso;
}

export type ClaimResult = 'claimed' | 'duplicate' | 'superseded' | 'gone';
/** `moved`: disabled, or its cron or zone changed since the tick listed it; `late`: not claimed. */
export type TakeResult = ClaimResult | 'moved' | 'late';

/** One schedule popped from a tick; `schedule` is set when its run was claimed. */
export interface Taken {
  id: string;
  result: TakeResult;
  run: InFlight;
  schedule?: RunTarget;
}

/** The take script reads them by position: checks first, then the run target's. */
const takeFields = [
  'name',
  'cron_expr',
  'enabled',
  'timezone',
  'misfire_through',
  'last_fire_at',
  'type',
  'script_name',
  'prompt',
  'output_target',
];
/** Splits key templates around an id; cannot occur in one. */
const mark = '\u0000';
export type FinishResult = 'ok' | 'run_once' | 'finished' | 'gone';

export interface RunOutcome {
  status: Exclude<RunStatus, 'running'>;
  error: string;
  output: string;
  finishedAt: string;
  /** Set when the schedule has an output target: delivery follows the run. */
  delivery?: RunEntry['delivery'];
}

export function createRunState(redis: Redis, opts: { leaseMs: number; claimRetentionMs: number }) {
  // The take script builds keys itself, so it needs the prefix ioredis adds to declared keys.
  const prefix = redis.options.keyPrefix ?? '';
  const lua = singleRunCommands(redis);
  const many = manyCommands(redis);
  const finishOne = createFinishBatcher((items) => {
    const keyList = [keys.scheduleRunning(), ...items.flatMap((i) => i.keys)];
    return many.finishMany(
      keyList.length,
      ...keyList,
      String(runHistoryLimit),
      new Date().toISOString(),
      ...items.flatMap((i) => i.args),
    );
  });
  const claimKey = (run: InFlight, jobId: string) =>
    run.fireTime === null
      ? keys.scheduleManualClaim(run.scheduleId, jobId)
      : keys.scheduleFired(run.scheduleId, run.fireTime);

  return {
    claimKey,
    async claim(run: InFlight, jobId: string): Promise<ClaimResult> {
      const member = run.member;
      return (await lua.claim(
        keys.schedule(run.scheduleId),
        claimKey(run, jobId),
        keys.scheduleRunning(),
        String(opts.claimRetentionMs),
        member,
        String(Date.now() + opts.leaseMs),
        run.fireTime === null ? '' : String(run.fireTime),
      )) as ClaimResult;
    },
    /** The in-flight member a claim key points at, and its lease deadline (null once finished). */
    async inspectClaim(key: string): Promise<{ member: string; deadline: number | null } | null> {
      const member = await redis.get(key);
      if (member === null || member === 'skipped') return null;
      const score = await redis.zscore(keys.scheduleRunning(), member);
      return { member, deadline: score === null ? null : Number(score) };
    },
    /** Pushes the lease deadline of runs still in flight (XX: a finished run stays gone). */
    async renew(runs: InFlight[]): Promise<void> {
      if (runs.length === 0) return;
      const deadline = Date.now() + opts.leaseMs;
      await redis.zadd(
        keys.scheduleRunning(),
        'XX',
        ...runs.flatMap((run) => [deadline, run.member]),
      );
    },
    /**
     * Pops up to `runIds.length` schedules from a tick's pending set and claims their runs of
     * `fireTime` (claim false: only pops, for firings picked up too late to run). Claimed rows
     * come with the schedule's config.
     */
    async takeMany(
      tick: { pending: string; pattern: string; tz: string },
      fireTime: number,
      startedAt: string,
      runIds: string[],
      claim = true,
    ): Promise<{ remaining: number; rows: Taken[] }> {
      const [hashHead = '', hashTail] = (prefix + keys.schedule(mark)).split(mark);
      const [claimHead = '', claimTail = ''] = (prefix + keys.scheduleFired(mark, fireTime)).split(
        mark,
      );
      if (hashTail !== '') throw new Error('schedule keys must end with the id');
      const [remaining, rows] = await many.takeMany(
        keys.scheduleRunning(),
        tick.pending,
        hashHead,
        claimHead,
        claimTail,
        String(opts.claimRetentionMs),
        String(Date.now() + opts.leaseMs),
        String(fireTime),
        tick.pattern,
        tick.tz,
        startedAt,
        claim ? '1' : '0',
        takeFields.length,
        ...takeFields,
        ...runIds,
      );
      return {
        remaining,
        rows: rows.map(([id, result, values], i) => {
          // The same member text the take script stored.
          const run = inFlightRun({ scheduleId: id, runId: runIds[i] ?? '', fireTime, startedAt });
          if (result !== 'claimed' || !values) return { id, result: result as TakeResult, run };
          const [name, type, scriptName, prompt, target] = values;
          const schedule: RunTarget = { id, name: name ?? '', type: type as ScheduleType };
          if (scriptName != null) schedule.script_name = scriptName;
          if (prompt != null) schedule.prompt = prompt;
          if (target) schedule.output_target = JSON.parse(target) as RunTarget['output_target'];
          return { id, result: 'claimed', run, schedule };
        }),
      };
    },
    /** Ends a run once (batched with the other finishes of the same event-loop turn). */
    async finish(run: InFlight, outcome: RunOutcome): Promise<FinishResult> {
      const entry: RunEntry = {
        id: run.runId,
        scheduled_at: run.fireTime === null ? null : isoOfFire(run.fireTime),
        started_at: run.startedAt,
        finished_at: outcome.finishedAt,
        status: outcome.status,
        error: outcome.error,
        output: outcome.output,
      };
      if (outcome.delivery) entry.delivery = outcome.delivery;
      return (await finishOne({
        keys: [keys.schedule(run.scheduleId), keys.scheduleRuns(run.scheduleId)],
        args: [
          run.member,
          JSON.stringify(entry),
          outcome.finishedAt,
          outcome.status,
          outcome.error,
          outcome.output,
        ],
      })) as FinishResult;
    },
    /** Records missed firings as one `skipped` entry, once (claimed on the newest fire time). */
    async skip(scheduleId: string, newest: number, entry: RunEntry): Promise<boolean> {
      const done = await lua.skip(
        keys.schedule(scheduleId),
        keys.scheduleRuns(scheduleId),
        keys.scheduleFired(scheduleId, newest),
        JSON.stringify(entry),
        String(opts.claimRetentionMs),
        String(runHistoryLimit),
        String(newest),
      );
      return done === 1;
    },
    async setDelivery(scheduleId: string, runId: string, delivery: RunEntry['delivery']) {
      await lua.delivery(keys.scheduleRuns(scheduleId), runId, JSON.stringify(delivery));
    },
    /** Runs whose lease ran out: their worker died or hung past the lease. */
    async expired(
      now = Date.now(),
      limit = 100,
    ): Promise<Array<{ member: string; run: InFlight }>> {
      const members = await redis.zrangebyscore(
        keys.scheduleRunning(),
        '-inf',
        now,
        'LIMIT',
        0,
        limit,
      );
      return members.flatMap((member) => {
        const run = parseMember(member);
        return run ? [{ member, run }] : [];
      });
    },
    async dropMember(member: string): Promise<void> {
      await redis.zrem(keys.scheduleRunning(), member);
    },
  };
}

export type RunState = ReturnType<typeof createRunState>;
