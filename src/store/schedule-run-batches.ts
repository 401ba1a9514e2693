import { keys } from './keys.js';
import { callLua } from './lua-commands.js';
import type { Redis } from './redis.js';
import type { RunTargetOf, ScheduleVocabulary } from './schedule-repository.js';
import { inFlightRun, type InFlight } from './schedule-run-member.js';

/**
 * Many runs' claims or finishes in one Lua call (lua/schedule-take-many-3.lua,
 * lua/schedule-finish-many.lua). A tick starts thousands of runs at once and each EVALSHA costs
 * Redis ~10 µs on top of its commands; per run, the steps are exactly those of the single-run
 * scripts (claim: SET NX on the fire time; finish: ZREM decides).
 */

export type ClaimResult = 'claimed' | 'duplicate' | 'superseded' | 'gone';
/** `moved`: disabled, or its cron or zone changed since the tick listed it; `late`: not claimed. */
export type TakeResult = ClaimResult | 'moved' | 'late';

/** One schedule popped from a tick; `schedule` is set when its run was claimed. */
export interface Taken<V extends ScheduleVocabulary = ScheduleVocabulary> {
  id: string;
  result: TakeResult;
  run: InFlight;
  schedule?: RunTargetOf<V>;
}

/** A tick: its group (whose pending set is taken from) and the (pattern, zone) it fires. */
export interface TickOfRuns {
  group: string;
  pattern: string;
  tz: string;
}

/**
 * A tick's member of the open ticks (keys.scheduleTicksOpen): `<fire time> <group> <zone>
 * <pattern>` (the pattern last: it holds spaces), so a sweep can drain it from the member alone.
 */
export function openTickMember(tick: TickOfRuns, fireTime: number): string {
  return `${fireTime} ${tick.group} ${tick.tz} ${tick.pattern}`;
}

export function parseOpenTick(member: string): { tick: TickOfRuns; fireTime: number } | null {
  const [fire, group, tz, ...pattern] = member.split(' ');
  const fireTime = Number(fire);
  if (!group || !tz || pattern.length === 0 || !Number.isSafeInteger(fireTime)) return null;
  return { tick: { group, tz, pattern: pattern.join(' ') }, fireTime };
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

type TakeReply = [
  remaining: number,
  rows: Array<[id: string, result: string, values?: Array<string | null>]>,
];

/**
 * Pops up to `runIds.length` schedules from a tick's pending set and claims their runs of
 * `fireTime` (claim false: only pops, for firings picked up too late to run). Claimed rows
 * come with the schedule's config.
 */
export async function takeMany<V extends ScheduleVocabulary>(
  redis: Redis,
  opts: { leaseMs: number; claimRetentionMs: number },
  tick: TickOfRuns,
  fireTime: number,
  startedAt: string,
  runIds: string[],
  claim: boolean,
): Promise<{ remaining: number; rows: Taken<V>[] }> {
  // The take script builds keys itself, so it needs the prefix ioredis adds to declared keys.
  const prefix = redis.options.keyPrefix ?? '';
  const [hashHead = '', hashTail] = (prefix + keys.schedule(mark)).split(mark);
  const [claimHead = '', claimTail = ''] = (prefix + keys.scheduleFired(mark, fireTime)).split(
    mark,
  );
  if (hashTail !== '') throw new Error('schedule keys must end with the id');
  const [remaining, rows] = (await callLua(
    redis,
    'scheduleTakeMany',
    keys.scheduleRunning(),
    keys.scheduleTickPending(tick.group, fireTime),
    keys.scheduleTicksOpen(),
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
    openTickMember(tick, fireTime),
    takeFields.length,
    ...takeFields,
    ...runIds,
  )) as TakeReply;
  return {
    remaining,
    rows: rows.map(([id, result, values], i) => {
      // The same member text the take script stored.
      const run = inFlightRun({ scheduleId: id, runId: runIds[i] ?? '', fireTime, startedAt });
      if (result !== 'claimed' || !values) return { id, result: result as TakeResult, run };
      const [name, type, scriptName, prompt, target] = values;
      // Read back as written: the values came through the domain's types.
      const schedule: RunTargetOf<V> = { id, name: name ?? '', type: type as V['type'] };
      if (scriptName != null) schedule.script_name = scriptName;
      if (prompt != null) schedule.prompt = prompt;
      if (target) schedule.output_target = JSON.parse(target) as V['target'];
      return { id, result: 'claimed', run, schedule };
    }),
  };
}

/** One run's finish as the batch script takes it. */
export interface FinishItem {
  keys: [hash: string, list: string];
  /** `delivery`: the delivery job's payload (JSON), '' when the run has no output target. */
  args: [
    member: string,
    entry: string,
    at: string,
    status: string,
    error: string,
    out: string,
    delivery: string,
  ];
}

/** Sends one batch of finishes; each run gets its result ('ok', 'run_once', 'finished', 'gone'). */
export function finishMany(redis: Redis, historyLimit: number, items: FinishItem[]) {
  const keyList = [
    keys.scheduleRunning(),
    keys.scheduleDeliveriesPending(),
    keys.scheduleDeliveryPayloads(),
    ...items.flatMap((i) => i.keys),
  ];
  const now = Date.now();
  return callLua(
    redis,
    'scheduleFinishMany',
    keyList.length,
    ...keyList,
    String(historyLimit),
    new Date(now).toISOString(),
    String(now),
    ...items.flatMap((i) => i.args),
  ) as Promise<string[]>;
}

/**
 * Gathers the finishes requested in one turn of the event loop into batch calls (at most 64 runs
 * or ~1 MiB of arguments each); each caller gets its own run's result.
 */
export function createFinishBatcher(send: (items: FinishItem[]) => Promise<string[]>) {
  let pending: Array<{ item: FinishItem; resolve(r: string): void; reject(e: unknown): void }> = [];
  const flush = () => {
    const all = pending;
    pending = [];
    while (all.length > 0) {
      let bytes = 0;
      let n = 0;
      while (n < all.length && n < 64 && bytes < 1 << 20) {
        bytes += (all[n] as (typeof all)[number]).item.args.reduce((s, a) => s + a.length, 0);
        n++;
      }
      const batch = all.splice(0, n);
      send(batch.map((b) => b.item)).then(
        (results) => batch.forEach((b, i) => b.resolve(results[i] ?? 'finished')),
        (err: unknown) => batch.forEach((b) => b.reject(err)),
      );
    }
  };
  return (item: FinishItem): Promise<string> =>
    new Promise((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ item, resolve, reject });
    });
}
