-- Appends a run to a script's history (KEYS script hash, history list; ARGV entry, limit), only
-- while the script exists, so a run finishing after a delete leaves no orphan key.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('LPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[2]) - 1)
return 1
