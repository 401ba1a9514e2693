-- Creates the one admin (KEYS admin hash; ARGV username, password hash, created_at). Check and
-- write in one script: two setup requests on two processes cannot both pass the check.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'username', ARGV[1], 'password_hash', ARGV[2], 'role', 'admin', 'created_at', ARGV[3])
return 1
