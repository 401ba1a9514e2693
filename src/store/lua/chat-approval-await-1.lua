-- Marks the open approval request KEYS[1] as waiting for a rejection reason, and records the
-- prompt message ARGV[1] that the reason answers. Returns the request, or false if not open.
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
local request = cjson.decode(raw)
if request.state ~= 'open' and request.state ~= 'awaiting_reason' then return false end
request.state = 'awaiting_reason'
request.reason_prompt_id = ARGV[1]
local updated = cjson.encode(request)
redis.call('SET', KEYS[1], updated, 'KEEPTTL')
return updated
