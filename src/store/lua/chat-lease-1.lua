-- Takes or renews the lease KEYS[1] for owner ARGV[1] for ARGV[2] ms. Returns 1 when ARGV[1]
-- holds it afterwards; another owner's live lease is left alone (0).
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
