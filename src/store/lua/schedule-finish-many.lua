-- Ends many runs in one call (a tick's runs finish together and each EVALSHA costs Redis ~10 µs
-- on top of its commands). Per run the steps are one finish: ZREM from the running set decides
-- who finalises (exactly once), then last_run_*, the history entry, for run_once
-- enabled: false, and for a run with an output target its pending delivery (the payload and a
-- pending-deliveries member, so a sweep can enqueue it when its finisher dies before doing so)
-- are written together.
-- Key counts vary per call: numkeys is the first argument.
-- KEYS: running, pending deliveries, delivery payloads, then per run (schedule hash, history
-- list). ARGV: history limit, now (ISO), now (ms), then per run seven values: member, history
-- entry, finished at, status, error, output, delivery payload ('' when none).
local out = {}
local runs = (#ARGV - 3) / 7
for r = 1, runs do
  local hash, list = KEYS[2 * r + 2], KEYS[2 * r + 3]
  local a = 3 + (r - 1) * 7
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
    if ARGV[a + 7] ~= '' then
      -- The member's first word is the run id.
      local runId = string.match(ARGV[a + 1], '^%S+')
      redis.call('HSET', KEYS[3], runId, ARGV[a + 7])
      redis.call('ZADD', KEYS[2], ARGV[3], runId)
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
