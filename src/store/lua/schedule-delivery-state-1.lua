-- The delivery status recorded in run ARGV[1]'s history entry (KEYS[1] the history list): '' when
-- the entry has none or has left the history.
local needle = '"id":"' .. ARGV[1] .. '"'
for _, raw in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  if string.find(raw, needle, 1, true) then
    local entry = cjson.decode(raw)
    if entry.id == ARGV[1] then
      if type(entry.delivery) == 'table' and type(entry.delivery.status) == 'string' then
        return entry.delivery.status
      end
      return ''
    end
  end
end
return ''
