import type { ServerResponse } from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BadRequestError } from '../../src/errors/request-errors.js';
import { createEngineClient } from '../../src/engine/client.js';
import {
  createModelsService,
  readDefaultModel,
  type ModelsService,
} from '../../src/engine/models-service.js';
import { createEnginePreferencesRepository } from '../../src/store/engine-preferences-repository.js';
import { freePort } from '../../src/store/embedded-redis.js';
import { keys } from '../../src/store/keys.js';
import type { Redis } from '../../src/store/redis.js';
import { startServer, type LocalServer } from '../net/local-server.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';

const log = pino({ level: 'silent' });

const model = (id: string, context: number, output: number) => ({
  id,
  name: id,
  limit: { context, output },
});

/** What the stand-in engine answers; each test sets what it needs. */
const engine: {
  providers: { providers: unknown[]; default: Record<string, string> };
  config: Record<string, unknown>;
} = { providers: { providers: [], default: {} }, config: {} };

const twoProviders = {
  providers: [
    { id: 'alpha', name: 'Alpha', models: { small: model('small', 8000, 1000) } },
    {
      id: 'beta',
      name: 'Beta',
      models: { big: model('big', 200000, 8000), 'org/tiny': model('org/tiny', 4000, 500) },
    },
  ],
  default: { beta: 'big' },
};

function json(res: ServerResponse, body: unknown) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

let server: LocalServer;
let redis: Redis;
let models: ModelsService;
let providerCalls = 0;
const prefix = uniquePrefix('models-service');

beforeAll(async () => {
  // A real HTTP server on 127.0.0.1 standing in for the engine's two config endpoints.
  server = await startServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/config/providers') {
      providerCalls++;
      return json(res, engine.providers);
    }
    if (path === '/config') return json(res, engine.config);
    res.writeHead(404).end();
  });
  redis = storeRedis(prefix);
});
const service = (providersTtlMs?: number) =>
  createModelsService({
    client: createEngineClient({ url: server.url, log, requestTimeoutMs: 2000 }),
    preferences: createEnginePreferencesRepository(redis),
    ...(providersTtlMs !== undefined ? { providersTtlMs } : {}),
  });
afterAll(async () => {
  await server.close();
  redis.disconnect();
  await dropPrefix(prefix);
});
beforeEach(async () => {
  models = service();
  engine.providers = twoProviders;
  engine.config = {};
  await redis.del(keys.defaultModel());
});

describe('models service', () => {
  it('serves the provider list from memory, and a stale one while it fetches a fresh one', async () => {
    const from = providerCalls;
    const asked = () => providerCalls - from;
    const cached = service(200);
    await cached.list();
    await cached.list();
    expect(asked()).toBe(1);
    engine.providers = { providers: [], default: {} };
    await new Promise((r) => setTimeout(r, 250));
    // Stale: answered at once from memory, refreshed behind.
    expect((await cached.list()).models).toHaveLength(3);
    await new Promise((r) => setTimeout(r, 100));
    expect((await cached.list()).models).toEqual([]);
    expect(asked()).toBe(2);
  });

  it('lists every model of every provider with its limits', async () => {
    const list = await models.list();
    expect(list.models).toEqual([
      { provider_id: 'alpha', model_id: 'small', context_limit: 8000, output_limit: 1000 },
      { provider_id: 'beta', model_id: 'big', context_limit: 200000, output_limit: 8000 },
      { provider_id: 'beta', model_id: 'org/tiny', context_limit: 4000, output_limit: 500 },
    ]);
  });

  it('answers as default the stored preference first', async () => {
    engine.config = { model: 'alpha/small' };
    await redis.set(keys.defaultModel(), JSON.stringify({ provider: 'beta', model: 'org/tiny' }));
    expect((await models.list()).default).toEqual({ provider: 'beta', model: 'org/tiny' });
  });

  it('then the engine’s configured model, split at its first slash', async () => {
    engine.config = { model: 'beta/org/tiny' };
    expect((await models.list()).default).toEqual({ provider: 'beta', model: 'org/tiny' });
  });

  it('then the default of the first provider that has one', async () => {
    expect((await models.list()).default).toEqual({ provider: 'beta', model: 'big' });
  });

  it('answers a null default only when the engine knows no default at all', async () => {
    engine.providers = { providers: [], default: {} };
    expect(await models.list()).toEqual({ models: [], default: null });
  });

  it('ignores an unreadable stored preference', async () => {
    await redis.set(keys.defaultModel(), '{not json');
    expect((await models.list()).default).toEqual({ provider: 'beta', model: 'big' });
    await redis.set(keys.defaultModel(), JSON.stringify({ provider: 'beta' }));
    expect((await models.list()).default).toEqual({ provider: 'beta', model: 'big' });
  });

  it('stores a known model as the default of new sessions', async () => {
    expect(await models.setDefault({ provider: 'alpha', model: 'small' })).toEqual({
      ok: true,
      default: { provider: 'alpha', model: 'small' },
    });
    expect(await redis.get(keys.defaultModel())).toBe('{"provider":"alpha","model":"small"}');
    expect((await models.list()).default).toEqual({ provider: 'alpha', model: 'small' });
  });

  it('stores only provider and model of what it is given', async () => {
    await models.setDefault({ provider: 'alpha', model: 'small', extra: 'dropped' });
    expect(await redis.get(keys.defaultModel())).toBe('{"provider":"alpha","model":"small"}');
  });

  it('refuses an incomplete pair with every problem in the message', async () => {
    const err = await models.setDefault({ provider: '', model: '' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as Error).message).toBe('provider is required; model is required');
    await expect(models.setDefault('alpha/small')).rejects.toBeInstanceOf(BadRequestError);
    expect(await redis.get(keys.defaultModel())).toBeNull();
  });

  it('refuses a model the engine does not offer, even one of another provider', async () => {
    await expect(models.setDefault({ provider: 'alpha', model: 'big' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'unknown model alpha/big',
    });
    expect(await redis.get(keys.defaultModel())).toBeNull();
  });

  it('answers 503 engine_unavailable when the engine is down', async () => {
    const down = createModelsService({
      client: createEngineClient({
        url: `http://127.0.0.1:${await freePort()}`,
        log,
        requestTimeoutMs: 2000,
      }),
      preferences: createEnginePreferencesRepository(redis),
    });
    await expect(down.list()).rejects.toMatchObject({ code: 'engine_unavailable', status: 503 });
    await expect(down.setDefault({ provider: 'a', model: 'b' })).rejects.toMatchObject({
      code: 'engine_unavailable',
    });
  });
});

describe('readDefaultModel', () => {
  const stored = (value: string | null) => ({ defaultModel: async () => value });

  it('reads a stored pair, and null for nothing, bad JSON or a bad shape', async () => {
    expect(await readDefaultModel(stored('{"provider":"p","model":"m"}'))).toEqual({
      provider: 'p',
      model: 'm',
    });
    expect(await readDefaultModel(stored(null))).toBeNull();
    expect(await readDefaultModel(stored(''))).toBeNull();
    expect(await readDefaultModel(stored('nope'))).toBeNull();
    expect(await readDefaultModel(stored('{"provider":"p","model":""}'))).toBeNull();
    expect(await readDefaultModel(stored('null'))).toBeNull();
  });
});
