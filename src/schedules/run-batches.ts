import type { Redis } from '../store/redis.js';

/**
 * Many runs' claims or finishes in one Lua call. A tick starts thousands of runs at once and each
 * EVALSHA costs Redis ~10 µs on top of its commands; per run, the steps are exactly those of the
 * single-run scripts in run-state.ts (claim: SET NX on the fire time; finish: ZREM decides).
 */

/**
 * Takes up to N schedules of a tick's pending set (SPOP), checks each still fires with the tick
 * and claims its run, all in one call: a tick starts thousands of runs at once, and a separate
 * read and claim per batch doubled the round trips and the client-side work per run.
 * The schedule hashes and claim keys are built here from the ids popped (key templates passed
 * in ARGV), as BullMQ's own scripts do; Steward runs on a single Redis, not a cluster.
 * KEYS: running, pending. ARGV: hash key head, claim key head, claim key tail, retention, lease
 * deadline, fire, pattern, zone, started at, claim ('1', or '0' to only pop late runs), field
 * count, fields (name, cron_expr, enabled, timezone, misfire_through, last_fire_at, then the
 * run target's: type, script_name, prompt, output_target), then one run id
 * per schedule to take. Returns {remaining, {id, result, target?}...}; a target is {name, type,
 * script_name, prompt, output_target}.
 */
export const takeManyLua = `
local hashHead, claimHead, claimTail = ARGV[1], ARGV[2], ARGV[3]
local retention, deadline, fire = ARGV[4], ARGV[5], ARGV[6]
local pattern, zone, started, claim = ARGV[7], ARGV[8], ARGV[9], ARGV[10]
local nf = tonumber(ARGV[11])
local fields = {}
for i = 1, nf do fields[i] = ARGV[11 + i] end
local firstRun = 12 + nf
local ids = redis.call('SPOP', KEYS[2], #ARGV - firstRun + 1)
local out = {}
for i, id in ipairs(ids) do
  local result, values = 'late', nil
  if claim == '1' then
    local hash = hashHead .. id
    values = redis.call('HMGET', hash, unpack(fields))
    if not values[1] then
      result, values = 'gone', nil
    elseif values[3] ~= '1' or values[2] ~= pattern or (values[4] or 'UTC') ~= zone then
      result, values = 'moved', nil
    elseif tonumber(fire) <= tonumber(values[5] or '0') then
      result, values = 'superseded', nil
    else
      local member = ARGV[firstRun + i - 1] .. ' ' .. id .. ' ' .. fire .. ' ' .. started
      if not redis.call('SET', claimHead .. id .. claimTail, member, 'NX', 'PX', retention) then
        result, values = 'duplicate', nil
      else
        result = 'claimed'
        redis.call('ZADD', KEYS[1], deadline, member)
        if tonumber(fire) > tonumber(values[6] or '0') then
          redis.call('HSET', hash, 'last_run_status', 'running', 'last_fire_at', fire)
        else
          redis.call('HSET', hash, 'last_run_status', 'running')
        end
      end
    end
  end
  out[#out + 1] = values and {id, result, {values[1], values[7], values[8], values[9], values[10]}}
    or {id, result}
end
return {redis.call('SCARD', KEYS[2]), out}
`;

/**
 * KEYS: running, then per run (schedule hash, history list). ARGV: history limit, now, then per
 * run six values: member, history entry, finished at, status, error, output.
 */
export const finishManyLua = `
local out = {}
local runs = (#ARGV - 2) / 6
for r = 1, runs do
  local hash, list = KEYS[2 * r], KEYS[2 * r + 1]
  local a = 2 + (r - 1) * 6
  local result = 'ok'
  local state = nil
  if redis.call('ZREM', KEYS[1], ARGV[a + 1]) == 0 then
    result = 'finished'
  else
    state = redis.call('HMGET', hash, 'name', 'run_once', 'enabled')
    if not state[1] then result = 'gone' end
  end
  if result == 'ok' then
    redis.call('HSET', hash, 'last_run_at', ARGV[a + 3], 'last_run_status', ARGV[a + 4],
      'last_run_error', ARGV[a + 5], 'last_run_output', ARGV[a + 6])
    -- LTRIM only when over the limit: most pushes are not.
    if redis.call('LPUSH', list, ARGV[a + 2]) > tonumber(ARGV[1]) then
      redis.call('LTRIM', list, 0, tonumber(ARGV[1]) - 1)
    end
    if state[2] == '1' then
      if state[3] == '1' then
        redis.call('HSET', hash, 'enabled', '0', 'updated_at', ARGV[2])
      end
      result = 'run_once'
    end
  end
  out[#out + 1] = result
end
return out
`;

/** One run's finish as the batch script takes it. */
export interface FinishItem {
  keys: [hash: string, list: string];
  args: [member: string, entry: string, at: string, status: string, error: string, out: string];
}

type Many = (...args: Array<string | number>) => Promise<string[]>;

type TakeReply = [
  remaining: number,
  rows: Array<[id: string, result: string, values?: Array<string | null>]>,
];

export function manyCommands(redis: Redis) {
  const host = redis as unknown as Record<string, Many | undefined>;
  if (!host.stewardScheduleTakeMany) {
    redis.defineCommand('stewardScheduleTakeMany', { numberOfKeys: 2, lua: takeManyLua });
    // Key counts vary per call: ioredis takes numkeys as the first argument.
    redis.defineCommand('stewardScheduleFinishMany', { lua: finishManyLua });
  }
  return {
    takeMany: (...args: Array<string | number>) =>
      (host.stewardScheduleTakeMany as Many).call(redis, ...args) as unknown as Promise<TakeReply>,
    finishMany: (...args: Array<string | number>) =>
      (host.stewardScheduleFinishMany as Many).call(redis, ...args),
  };
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
