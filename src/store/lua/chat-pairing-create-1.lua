-- A pairing request in the hash KEYS[1] (code → JSON with identity, provider and expires_at).
-- ARGV: now (ms), the identity ("provider:user"), a fresh code, its JSON, the most pending per
-- provider, the provider. Expired requests are dropped first. The identity's pending code is
-- returned again if it has one; else the new one is stored, and when ARGV[5] of the provider's
-- are pending already the oldest of them is dropped to make room: strangers flooding the bot
-- cannot keep anyone else from asking. Returns {code, 1 when new, the code dropped or ''}.
local now = tonumber(ARGV[1])
local pending = 0
local oldest, oldestAt = nil, nil
local entries = redis.call('HGETALL', KEYS[1])
for i = 1, #entries, 2 do
  local entry = cjson.decode(entries[i + 1])
  local expires = tonumber(entry.expires_at)
  if expires <= now then
    redis.call('HDEL', KEYS[1], entries[i])
  elseif entry.identity == ARGV[2] then
    return {entries[i], 0, ''}
  elseif entry.provider == ARGV[6] then
    pending = pending + 1
    if oldestAt == nil or expires < oldestAt then
      oldest, oldestAt = entries[i], expires
    end
  end
end
local dropped = ''
if pending >= tonumber(ARGV[5]) and oldest then
  redis.call('HDEL', KEYS[1], oldest)
  dropped = oldest
end
redis.call('HSET', KEYS[1], ARGV[3], ARGV[4])
return {ARGV[3], 1, dropped}
