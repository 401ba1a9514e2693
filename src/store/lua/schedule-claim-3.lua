-- A manual or catch-up run's claim: KEYS schedule hash, claim key, running set.
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
