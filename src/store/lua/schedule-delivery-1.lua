-- Writes a delivery outcome into the run's history entry (KEYS[1] the history list).
local items = redis.call('LRANGE', KEYS[1], 0, -1)
for i, raw in ipairs(items) do
  local entry = cjson.decode(raw)
  if entry.id == ARGV[1] then
    entry.delivery = cjson.decode(ARGV[2])
    redis.call('LSET', KEYS[1], i - 1, cjson.encode(entry))
    return 1
  end
end
return 0
