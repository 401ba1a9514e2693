import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEngineClient, type EngineClient } from '../../src/engine/client.js';
import { createModelsService, type ModelsService } from '../../src/engine/models-service.js';
import { createSessionsService, type SessionsService } from '../../src/engine/sessions-service.js';
import { keys } from '../../src/store/keys.js';
import { createEnginePreferencesRepository } from '../../src/store/engine-preferences-repository.js';
import type { Redis } from '../../src/store/redis.js';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';
import { startTestEngine, type TestEngine } from '../support/opencode.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

const log = pino({ level: 'silent' });

describe('sessions and models services against a real engine', { timeout: 60_000 }, () => {
  let fake: FakeModel;
  let engine: TestEngine;
  let client: EngineClient;
  let redis: Redis;
  let sessions: SessionsService;
  let models: ModelsService;
  const prefix = uniquePrefix('engine-sessions');

  beforeAll(async () => {
    fake = await startFakeModel();
    engine = await startTestEngine({ modelURL: fake.baseURL, password: 'pw-sessions' });
    client = createEngineClient({
      url: engine.url,
      password: 'pw-sessions',
      log,
      requestTimeoutMs: 10_000,
    });
    redis = storeRedis(prefix);
    sessions = createSessionsService({
      client,
      preferences: createEnginePreferencesRepository(redis),
      log,
    });
    models = createModelsService({ client, preferences: createEnginePreferencesRepository(redis) });
  });

  afterAll(async () => {
    await engine?.stop();
    await fake?.close();
    await dropPrefix(prefix);
    redis?.disconnect();
  });

  beforeEach(() => fake.reset());

  it('creates a session in the spec shape and makes it active', async () => {
    const created = await sessions.create();
    expect(created.id).toMatch(/^ses_/);
    expect(Object.keys(created).sort()).toEqual([
      'directory',
      'id',
      'slug',
      'time',
      'title',
      'version',
    ]);
    expect(created.directory).toBe(engine.workspace);
    expect(Number.isInteger(created.time.created)).toBe(true);
    expect(Number.isInteger(created.time.updated)).toBe(true);
    expect(await redis.get(keys.activeSession())).toBe(created.id);

    const second = await sessions.create();
    const list = await sessions.list();
    const byId = new Map(list.map((s) => [s.id, s]));
    expect(byId.get(created.id)?.active).toBe(false);
    expect(byId.get(second.id)?.active).toBe(true);
    expect(list.filter((s) => s.active)).toHaveLength(1);

    expect(await sessions.get(created.id)).toEqual(created);
  });

  it('deletes a session, clears it as active, then answers not_found', async () => {
    const created = await sessions.create();
    expect(await sessions.remove(created.id)).toEqual({ ok: true });
    expect(await redis.get(keys.activeSession())).toBeNull();
    await expect(sessions.get(created.id)).rejects.toMatchObject({
      code: 'not_found',
      status: 404,
    });
    await expect(sessions.remove(created.id)).rejects.toMatchObject({ code: 'not_found' });
    expect((await sessions.list()).some((s) => s.id === created.id)).toBe(false);
  });

  it('deleting another session leaves the active one alone', async () => {
    const first = await sessions.create();
    const second = await sessions.create();
    await sessions.remove(first.id);
    expect(await redis.get(keys.activeSession())).toBe(second.id);
  });

  it('maps messages and honours the limit (newest N, oldest first)', async () => {
    const session = await sessions.create();
    fake.enqueue({ kind: 'text', text: 'first answer' }, { kind: 'text', text: 'second answer' });
    expect(await client.prompt(session.id, 'one')).toBe('first answer');
    expect(await client.prompt(session.id, 'two')).toBe('second answer');

    const all = await sessions.messages(session.id, 50);
    expect(all.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    for (const m of all) {
      expect(m.id).toMatch(/^msg_/);
      expect(m.sessionID).toBe(session.id);
      expect(Number.isInteger(m.time.created) && Number.isInteger(m.time.updated)).toBe(true);
      expect(m.time.updated).toBeGreaterThanOrEqual(m.time.created);
    }
    const user = all[0];
    expect(user?.time.updated).toBe(user?.time.created);
    expect(user?.parts).toContainEqual(expect.objectContaining({ type: 'text', text: 'one' }));
    // Parts are passed through untouched, step markers included.
    expect(all[1]?.parts.map((p) => (p as { type: string }).type)).toEqual([
      'step-start',
      'text',
      'step-finish',
    ]);

    const last2 = await sessions.messages(session.id, 2);
    expect(last2.map((m) => m.id)).toEqual(all.slice(2).map((m) => m.id));
    await expect(sessions.messages('ses_doesnotexist', 5)).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('lists the models with limits and the engine default', async () => {
    const list = await models.list();
    expect(list.models).toContainEqual({
      provider_id: 'mock',
      model_id: 'echo',
      context_limit: 200_000,
      output_limit: 8_000,
    });
    expect(list.models).toContainEqual({
      provider_id: 'mock',
      model_id: 'alt',
      context_limit: 100_000,
      output_limit: 4_000,
    });
    expect(list.default).toEqual({ provider: 'mock', model: 'echo' });
  });

  it('rejects an unknown or incomplete default model', async () => {
    await expect(models.setDefault({ provider: 'mock', model: 'nope' })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(models.setDefault({ provider: 'mock' })).rejects.toMatchObject({
      code: 'invalid_request',
      status: 400,
    });
  });

  it('a new default applies to sessions created afterwards only', async () => {
    await redis.del(keys.defaultModel());
    const before = await sessions.create();
    expect(await models.setDefault({ provider: 'mock', model: 'alt' })).toEqual({
      ok: true,
      default: { provider: 'mock', model: 'alt' },
    });
    expect((await models.list()).default).toEqual({ provider: 'mock', model: 'alt' });
    const after = await sessions.create();

    await client.prompt(before.id, 'old session');
    await client.prompt(after.id, 'new session');
    const asked = (text: string) =>
      fake.chatRequests().find((r) => r.userText === text)?.body.model;
    expect(asked('old session')).toBe('echo');
    expect(asked('new session')).toBe('alt');
    await redis.del(keys.defaultModel());
  });
});
