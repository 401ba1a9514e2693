-- Takes up to ARGV[3] members of the ZSET KEYS[1] scored at or before ARGV[1] and scores them
-- ARGV[2] (now) in the same call: sweeps running in several workers at once each get different
-- members, and a member comes back only after another full wait.
local members = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, m in ipairs(members) do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], m) end
return members
