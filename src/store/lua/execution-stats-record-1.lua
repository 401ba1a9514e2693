-- Counts one finished run (KEYS stats hash; ARGV success|failed, duration ms). One script rather
-- than MULTI: it rides the store connection's auto-pipeline beside the run's history append, so
-- recording a run costs one round trip, and readers still never see a half-counted run.
redis.call('HINCRBY', KEYS[1], 'total', 1)
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('HINCRBY', KEYS[1], 'duration_sum', tonumber(ARGV[2]))
return 1
