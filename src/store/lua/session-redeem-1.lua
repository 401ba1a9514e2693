-- Redeems refresh token ARGV[1] of the session hash KEYS[1] for user ARGV[2]; ARGV[3] the fresh
-- token id, ARGV[4] the grace in ms, ARGV[5] the session lifetime in ms.
-- Redis's clock, not the caller's: several API processes must agree on when a grace ends.
local s = redis.call('HMGET', KEYS[1], 'current', 'previous', 'previous_until', 'username')
if not s[1] or s[4] ~= ARGV[2] then return {'unknown', ''} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if ARGV[1] == s[1] then
  redis.call('HSET', KEYS[1], 'current', ARGV[3], 'previous', ARGV[1], 'previous_until', tostring(now + tonumber(ARGV[4])))
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return {'rotated', ARGV[3]}
end
if s[2] and ARGV[1] == s[2] and now < tonumber(s[3]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return {'grace', s[1]}
end
redis.call('DEL', KEYS[1])
return {'reused', ''}
