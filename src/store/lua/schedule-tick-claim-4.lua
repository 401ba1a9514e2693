-- Claims a tick (a group's fire time) once and copies the group's members into its pending set
-- in the same call: ten thousand ids never travel to a worker and back. A tick with members is
-- recorded as open until a take empties its pending set, so that a sweep can drain it when its
-- claimer died before taking them.
-- KEYS: tick claim, group set, pending set, open ticks. ARGV: claimer, retention, open member,
-- now (ms). Returns the number of members listed, -1 when the tick was claimed already.
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return -1 end
local n = redis.call('SUNIONSTORE', KEYS[3], KEYS[2])
if n > 0 then
  redis.call('PEXPIRE', KEYS[3], ARGV[2])
  redis.call('ZADD', KEYS[4], ARGV[4], ARGV[3])
end
return n
