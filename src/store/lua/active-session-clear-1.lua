-- Clears the active-session pointer KEYS[1] only while it still names session ARGV[1] (another
-- replica may have moved it).
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
