-- Writes a delivery's outcome into the run's history entry and ends its pending record, so that
-- no sweep sends it again. KEYS: history list, pending deliveries, delivery payloads. ARGV: run
-- id, delivery JSON. Returns 1 when the entry was found (it may have left the history).
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
-- Only the entry holding the id is decoded: entries carry up to 64 KiB of output each.
local needle = '"id":"' .. ARGV[1] .. '"'
local items = redis.call('LRANGE', KEYS[1], 0, -1)
for i, raw in ipairs(items) do
  if string.find(raw, needle, 1, true) then
    local entry = cjson.decode(raw)
    if entry.id == ARGV[1] then
      entry.delivery = cjson.decode(ARGV[2])
      redis.call('LSET', KEYS[1], i - 1, cjson.encode(entry))
      return 1
    end
  end
end
return 0
