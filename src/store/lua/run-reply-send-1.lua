-- Leaves an answer for a waiting caller's process (KEYS its reply list; ARGV answer, ttl ms). The
-- list expires when its process stops reading it (gone for good), so no answer outlives its use.
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
