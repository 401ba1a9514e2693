-- Drops a tick group's recorded spec once its set is empty. A joiner writes its spec with its
-- SADD (one MULTI), so this cannot drop a live group's spec.
-- KEYS: group set, group specs hash. ARGV: group.
if redis.call('SCARD', KEYS[1]) == 0 then redis.call('HDEL', KEYS[2], ARGV[1]) end
return 0
