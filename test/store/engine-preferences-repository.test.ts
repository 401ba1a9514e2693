import { afterAll, describe, expect, it } from 'vitest';
import { createEnginePreferencesRepository } from '../../src/store/engine-preferences-repository.js';
import { keys } from '../../src/store/keys.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

describe('engine preferences repository', () => {
  const prefix = uniquePrefix('engine-prefs');
  const redis = storeRedis(prefix);
  const preferences = createEnginePreferencesRepository(redis);
  afterAll(async () => {
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it('keeps the active session, and clears it only while it names the given session', async () => {
    expect(await preferences.activeSession()).toBeNull();
    await preferences.setActiveSession('ses_a');
    expect(await redis.get(keys.activeSession())).toBe('ses_a');
    // Another replica moved the pointer: clearing the old session leaves the new one.
    await preferences.setActiveSession('ses_b');
    await preferences.clearActiveSession('ses_a');
    expect(await preferences.activeSession()).toBe('ses_b');
    await preferences.clearActiveSession('ses_b');
    expect(await preferences.activeSession()).toBeNull();
    expect(await redis.exists(keys.activeSession())).toBe(0);
  });

  it('stores the default model as given', async () => {
    expect(await preferences.defaultModel()).toBeNull();
    const value = JSON.stringify({ provider: 'p', model: 'm' });
    await preferences.setDefaultModel(value);
    expect(await preferences.defaultModel()).toBe(value);
    expect(await redis.get(keys.defaultModel())).toBe(value);
  });
});
