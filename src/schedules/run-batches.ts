import type { Redis } from '../store/redis.js';

/**
 * Many runs' claims or finishes in one Lua call. A tick starts thousands of runs at once and each
 * EVALSHA costs Redis ~10 µs on top of its commands; per run, the steps are exactly those of the
 * single-run scripts in run-state.ts (claim: SET NX on the fire time; finish: ZREM decides).
 */

/** KEYS: running, then per run (schedule hash, claim key). ARGV: retention, deadline, fire, members. */
export const claimManyLua = `
local fire = ARGV[3]
local out = {}
for i = 4, #ARGV do
  local hash, claim = KEYS[2 * (i - 3)], KEYS[2 * (i - 3) + 1]
  local result = 'claimed'
  if redis.call('EXISTS', hash) == 0 then
    result = 'gone'
  elseif tonumber(fire) <= tonumber(redis.call('HGET', hash, 'misfire_through') or '0') then
    result = 'superseded'
  elseif not redis.call('SET', claim, ARGV[i], 'NX', 'PX', ARGV[1]) then
    result = 'duplicate'
  else
    redis.call('ZADD', KEYS[1], ARGV[2], ARGV[i])
    redis.call('HSET', hash, 'last_run_status', 'running')
    if tonumber(fire) > tonumber(redis.call('HGET', hash, 'last_fire_at') or '0') then
      redis.call('HSET', hash, 'last_fire_at', fire)
    end
  end
  out[#out + 1] = result
end
return out
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
  if redis.call('ZREM', KEYS[1], ARGV[a + 1]) == 0 then
    result = 'finished'
  elseif redis.call('EXISTS', hash) == 0 then
    result = 'gone'
  else
    redis.call('HSET', hash, 'last_run_at', ARGV[a + 3], 'last_run_status', ARGV[a + 4],
      'last_run_error', ARGV[a + 5], 'last_run_output', ARGV[a + 6])
    redis.call('LPUSH', list, ARGV[a + 2])
    redis.call('LTRIM', list, 0, tonumber(ARGV[1]) - 1)
    if redis.call('HGET', hash, 'run_once') == '1' then
      if redis.call('HGET', hash, 'enabled') == '1' then
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

export function manyCommands(redis: Redis): { claimMany: Many; finishMany: Many } {
  const host = redis as unknown as Record<string, Many | undefined>;
  if (!host.stewardScheduleClaimMany) {
    // Key counts vary per call: ioredis takes numkeys as the first argument.
    redis.defineCommand('stewardScheduleClaimMany', { lua: claimManyLua });
    redis.defineCommand('stewardScheduleFinishMany', { lua: finishManyLua });
  }
  return {
    claimMany: (...args) => (host.stewardScheduleClaimMany as Many).call(redis, ...args),
    finishMany: (...args) => (host.stewardScheduleFinishMany as Many).call(redis, ...args),
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
