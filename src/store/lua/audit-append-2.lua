-- Appends entries to the audit chain (KEYS stream, head; ARGV expected head, then entry JSON and
-- hash pairs) only while the head is still the one their hashes were computed from: another
-- process that appended meanwhile makes this a no-op, and the caller computes again.
-- Returns {1, id...} when appended, {0, current head} when the head moved.
local head = redis.call('GET', KEYS[2]) or ''
if head ~= ARGV[1] then return {0, head} end
local ids = {1}
for i = 2, #ARGV, 2 do
  ids[#ids + 1] = redis.call('XADD', KEYS[1], '*', 'e', ARGV[i], 'h', ARGV[i + 1])
  head = ARGV[i + 1]
end
redis.call('SET', KEYS[2], head)
return ids
