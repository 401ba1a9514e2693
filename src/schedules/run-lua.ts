import type { Redis } from '../store/redis.js';

/**
 * The single-run steps of run-state.ts as Lua: a manual or catch-up run's claim, the record of
 * skipped firings, and a delivery outcome written into the run's history entry. Tick runs use
 * the batch scripts of run-batches.ts, with the same per-run steps.
 */

const claimLua = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 'gone' end
local fire = ARGV[4]
if fire ~= '' then
  local through = tonumber(redis.call('HGET', KEYS[1], 'misfire_through') or '0')
  if tonumber(fire) <= through then return 'superseded' end
end
if not redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[1]) then return 'duplicate' end
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2])
redis.call('HSET', KEYS[1], 'last_run_status', 'running')
if fire ~= '' then
  local last = tonumber(redis.call('HGET', KEYS[1], 'last_fire_at') or '0')
  if tonumber(fire) > last then redis.call('HSET', KEYS[1], 'last_fire_at', fire) end
end
return 'claimed'
`;

// Firings up to misfire_through are recorded already (by the catch-up or a late tick).
const skipLua = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local through = tonumber(redis.call('HGET', KEYS[1], 'misfire_through') or '0')
if tonumber(ARGV[4]) <= through then return 0 end
if not redis.call('SET', KEYS[3], 'skipped', 'NX', 'PX', ARGV[2]) then return 0 end
redis.call('LPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[3]) - 1)
redis.call('HSET', KEYS[1], 'misfire_through', ARGV[4])
return 1
`;

const deliveryLua = `
local items = redis.call('LRANGE', KEYS[1], 0, -1)
for i, raw in ipairs(items) do
  local entry = cjson.decode(raw)
  if entry.id == ARGV[1] then
    entry.delivery = cjson.decode(ARGV[2])
    redis.call('LSET', KEYS[1], i - 1, cjson.encode(entry))
    return 1
  end
end
return 0
`;

type Lua = (...args: Array<string | number>) => Promise<unknown>;

/** EVALSHA through ioredis custom commands: the script text is not sent (nor hashed) per call. */
export function singleRunCommands(redis: Redis) {
  const defs = {
    stewardScheduleClaim: [3, claimLua],
    stewardScheduleSkip: [3, skipLua],
    stewardScheduleDelivery: [1, deliveryLua],
  } as const;
  const host = redis as unknown as Record<string, Lua | undefined>;
  for (const [name, [numberOfKeys, lua]] of Object.entries(defs)) {
    if (!host[name]) redis.defineCommand(name, { numberOfKeys, lua });
  }
  const call =
    (name: keyof typeof defs): Lua =>
    (...args) =>
      (host[name] as Lua).call(redis, ...args);
  return {
    claim: call('stewardScheduleClaim'),
    skip: call('stewardScheduleSkip'),
    delivery: call('stewardScheduleDelivery'),
  };
}
