-- Records the message id ARGV[1] of the approval request KEYS[1] once its message was sent (the
-- request is stored first, so a tap that comes at once finds it).
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local request = cjson.decode(raw)
request.message_id = ARGV[1]
redis.call('SET', KEYS[1], cjson.encode(request), 'KEEPTTL')
return 1
