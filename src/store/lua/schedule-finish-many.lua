-- Ends many runs in one call (a tick's runs finish together and each EVALSHA costs Redis ~10 µs
-- on top of its commands). Per run the steps are one finish: ZREM from the running set decides
-- who finalises (exactly once), then last_run_*, the history entry and, for run_once,
-- enabled: false are written together.
-- Key counts vary per call: numkeys is the first argument.
-- KEYS: running, then per run (schedule hash, history list). ARGV: history limit, now, then per
-- run six values: member, history entry, finished at, status, error, output.
local out = {}
local runs = (#ARGV - 2) / 6
for r = 1, runs do
  local hash, list = KEYS[2 * r], KEYS[2 * r + 1]
  local a = 2 + (r - 1) * 6
  local result = 'ok'
  local state = nil
  if redis.call('ZREM', KEYS[1], ARGV[a + 1]) == 0 then
    result = 'finished'
  else
    state = redis.call('HMGET', hash, 'name', 'run_once', 'enabled')
    if not state[1] then result = 'gone' end
  end
  if result == 'ok' then
    redis.call('HSET', hash, 'last_run_at', ARGV[a + 3], 'last_run_status', ARGV[a + 4],
      'last_run_error', ARGV[a + 5], 'last_run_output', ARGV[a + 6])
    -- LTRIM only when over the limit: most pushes are not.
    if redis.call('LPUSH', list, ARGV[a + 2]) > tonumber(ARGV[1]) then
      redis.call('LTRIM', list, 0, tonumber(ARGV[1]) - 1)
    end
    if state[2] == '1' then
      if state[3] == '1' then
        redis.call('HSET', hash, 'enabled', '0', 'updated_at', ARGV[2])
      end
      result = 'run_once'
    end
  end
  out[#out + 1] = result
end
return out
