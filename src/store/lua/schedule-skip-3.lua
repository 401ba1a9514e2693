-- Records a skipped firing; firings up to misfire_through are recorded already (by the
-- catch-up or a late tick).
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local through = tonumber(redis.call('HGET', KEYS[1], 'misfire_through') or '0')
if tonumber(ARGV[4]) <= through then return 0 end
if not redis.call('SET', KEYS[3], 'skipped', 'NX', 'PX', ARGV[2]) then return 0 end
redis.call('LPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[3]) - 1)
redis.call('HSET', KEYS[1], 'misfire_through', ARGV[4])
return 1
