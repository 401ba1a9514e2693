-- A pairing request in the hash KEYS[1] (code → JSON with identity and expires_at).
-- ARGV: now (ms), the identity ("provider:user"), a fresh code, its JSON, the most pending.
-- Expired requests are dropped first. The identity's pending code is returned again if it has
-- one; else the new one is stored unless ARGV[5] are pending already (returns false then).
local now = tonumber(ARGV[1])
local pending = 0
local entries = redis.call('HGETALL', KEYS[1])
for i = 1, #entries, 2 do
  local entry = cjson.decode(entries[i + 1])
  if tonumber(entry.expires_at) <= now then
    redis.call('HDEL', KEYS[1], entries[i])
  elseif entry.identity == ARGV[2] then
    return {entries[i], 0}
  else
    pending = pending + 1
  end
end
if pending >= tonumber(ARGV[5]) then return false end
redis.call('HSET', KEYS[1], ARGV[3], ARGV[4])
return {ARGV[3], 1}
