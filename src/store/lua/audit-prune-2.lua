-- Drops audit entries older than a stream id (KEYS stream, anchor; ARGV cutoff id): the hash of
-- the newest dropped entry becomes the anchor, the `prev` the oldest kept entry must carry, so
-- the rest of the chain still verifies. Returns the number of entries dropped.
local last = redis.call('XREVRANGE', KEYS[1], '(' .. ARGV[1], '-', 'COUNT', 1)
if #last == 0 then return 0 end
local fields = last[1][2]
for i = 1, #fields, 2 do
  if fields[i] == 'h' then redis.call('SET', KEYS[2], fields[i + 1]) end
end
return redis.call('XTRIM', KEYS[1], 'MINID', ARGV[1])
