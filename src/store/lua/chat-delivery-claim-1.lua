-- Claims part ARGV[1] of one (run, target) delivery in the hash KEYS[1] before it is sent.
-- Returns "claimed" when this caller may send it, else the part's state: "sent", or "sending"
-- (someone began to send it and never said how it ended: the outcome is unknown).
local state = redis.call('HGET', KEYS[1], ARGV[1])
if state then return state end
redis.call('HSET', KEYS[1], ARGV[1], 'sending')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 'claimed'
