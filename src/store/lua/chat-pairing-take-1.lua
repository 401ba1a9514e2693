-- Removes and returns the pending pairing ARGV[1] of the hash KEYS[1], unless it expired
-- before ARGV[2] (ms): a decision is made once, by whoever takes it first.
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
local entry = cjson.decode(raw)
if tonumber(entry.expires_at) <= tonumber(ARGV[2]) then return false end
return raw
