-- Moves the approval request KEYS[1] from an open state ("open", "awaiting_reason") to ARGV[1],
-- once: returns the request as it was, or false when it was already closed or is gone. Drops the
-- script's pointer in the hash KEYS[2] (field ARGV[2]) while it still names this request.
-- With ARGV[3] (ms, may be empty) a request expired by then is left open (false), for the sweep.
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
local request = cjson.decode(raw)
if request.state ~= 'open' and request.state ~= 'awaiting_reason' then return false end
if ARGV[3] ~= '' and tonumber(request.expires_at) <= tonumber(ARGV[3]) then return false end
local before = raw
request.state = ARGV[1]
redis.call('SET', KEYS[1], cjson.encode(request), 'KEEPTTL')
if redis.call('HGET', KEYS[2], ARGV[2]) == request.id then redis.call('HDEL', KEYS[2], ARGV[2]) end
return before
