import { afterAll, describe, expect, it } from 'vitest';
import { callLua, luaDefinitions } from '../../src/store/lua-commands.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

describe('Lua loader', () => {
  const prefix = uniquePrefix('lua');
  const redis = storeRedis(prefix);
  afterAll(async () => {
    await dropPrefix(prefix);
    redis.disconnect();
  });

  it('names each file <name>-<keys>.lua as a camelCase command with its key count', () => {
    const claim = luaDefinitions().find((d) => d.command === 'scheduleClaim');
    expect(claim?.numberOfKeys).toBe(3);
    expect(claim?.lua).toMatch(/redis\.call/);
  });

  it('runs by EVALSHA under the key prefix and survives a SCRIPT FLUSH', async () => {
    await redis.hset('s1', 'misfire_through', '0');
    const run = () =>
      callLua(redis, 'scheduleSkip', 's1', 'history', 'claim', '{}', 60_000, 10, Date.now());
    expect(await run()).toBe(1);
    await redis.script('FLUSH');
    await redis.del('claim');
    await redis.hset('s1', 'misfire_through', '0');
    expect(await run()).toBe(1);
    expect(await redis.llen('history')).toBe(2);
  });
});
