-- Takes up to N schedules of a tick's pending set (SPOP), checks each still fires with the tick
-- and claims its run, all in one call: a tick starts thousands of runs at once, and a separate
-- read and claim per batch doubled the round trips and the client-side work per run. Per run,
-- the claim is that of schedule-claim (SET NX on the fire time).
-- The schedule hashes and claim keys are built here from the ids popped (key templates passed
-- in ARGV), as BullMQ's own scripts do; Steward runs on a single Redis, not a cluster.
-- The take that empties the pending set closes the tick (ZREM from the open ticks).
-- KEYS: running, pending, open ticks. ARGV: hash key head, claim key head, claim key tail,
-- retention, lease deadline, fire, pattern, zone, started at, claim ('1', or '0' to only pop late
-- runs), open member, field count, fields (name, cron_expr, enabled, timezone, misfire_through, last_fire_at, then the
-- run target's: type, script_name, prompt, output_target), then one run id
-- per schedule to take. Returns {remaining, {id, result, target?}...}; a target is {name, type,
-- script_name, prompt, output_target}.
local hashHead, claimHead, claimTail = ARGV[1], ARGV[2], ARGV[3]
local retention, deadline, fire = ARGV[4], ARGV[5], ARGV[6]
local pattern, zone, started, claim = ARGV[7], ARGV[8], ARGV[9], ARGV[10]
local nf = tonumber(ARGV[12])
local fields = {}
for i = 1, nf do fields[i] = ARGV[12 + i] end
local firstRun = 13 + nf
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
local remaining = redis.call('SCARD', KEYS[2])
if remaining == 0 then redis.call('ZREM', KEYS[3], ARGV[11]) end
return {remaining, out}
