import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { createEngineModule, DEFAULT_ENGINE_URL } from '../../src/engine/engine-module.js';
import { createEnginePreferencesRepository } from '../../src/store/engine-preferences-repository.js';
import { storeRedis, uniquePrefix } from '../support/redis.js';

const log = pino({ level: 'silent' });
const redis = storeRedis(uniquePrefix('engine-module'));
afterAll(() => redis.disconnect());

const build = (overrides: Record<string, unknown>, supervise?: boolean) =>
  createEngineModule({
    config: loadConfig({ cwd: '/srv/steward', overrides }),
    log,
    preferences: createEnginePreferencesRepository(redis),
    redisUrl: 'redis://127.0.0.1:6379',
    ...(supervise === undefined ? {} : { supervise }),
  });

describe('engine module wiring', () => {
  it('uses an external engine when engine.url is set', async () => {
    const mod = await build({
      'engine.url': 'http://10.0.0.5:4096',
      'engine.command': ['opencode'],
    });
    expect(mod.supervisor).toBeNull();
    expect(mod.client.url).toBe('http://10.0.0.5:4096');
  });

  it("falls back to OpenCode's default address when autostart is off", async () => {
    const mod = await build({ 'engine.autostart': false });
    expect(mod.supervisor).toBeNull();
    expect(mod.configured).toBe(false);
    expect(mod.client.url).toBe(DEFAULT_ENGINE_URL);
  });

  it('supervises the installed opencode-ai when nothing is configured', async () => {
    const mod = await build({});
    expect(mod.supervisor?.status()).toBe('stopped');
    expect(mod.configured).toBe(true);
    expect(mod.client.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // An API replica supervises nothing and has no engine of its own.
    const replica = await build({}, false);
    expect(replica.supervisor).toBeNull();
    expect(replica.configured).toBe(false);
  });

  it('supervises engine.command on a port fixed up front', async () => {
    const mod = await build({ 'engine.command': ['opencode'], 'engine.port': 45999 });
    expect(mod.supervisor?.status()).toBe('stopped');
    expect(mod.client.url).toBe('http://127.0.0.1:45999');
    expect(mod.supervisor?.url).toBe('http://127.0.0.1:45999');
    const replica = await build({ 'engine.command': ['opencode'] }, false);
    expect(replica.supervisor).toBeNull();
  });
});
