import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsPlugin } from '../../../src/api/plugins/errors.js';
import { modelRoutes } from '../../../src/api/routes/models.js';
import { modelRefSchema, type ModelsService } from '../../../src/engine/models-service.js';
import { BadRequestError } from '../../../src/errors/request-errors.js';

/** Two models of one provider; setDefault checks the pair as the real service does. */
function fakeModels() {
  const received: unknown[] = [];
  let current: { provider: string; model: string } | null = { provider: 'mock', model: 'echo' };
  const service: ModelsService = {
    async list() {
      return {
        models: [
          {
            provider_id: 'mock',
            model_id: 'echo',
            context_limit: 8000,
            output_limit: 1000,
            cost: 3,
          } as never,
          { provider_id: 'mock', model_id: 'alt', context_limit: 4000, output_limit: 500 },
        ],
        default: current,
      };
    },
    async setDefault(input) {
      received.push(input);
      const ref = modelRefSchema.parse(input);
      if (!['echo', 'alt'].includes(ref.model)) {
        throw new BadRequestError(`unknown model "${ref.provider}/${ref.model}"`);
      }
      current = ref;
      return { ok: true, default: ref };
    },
  };
  return { service, received, clear: () => (current = null) };
}

let app: FastifyInstance;
let fake: ReturnType<typeof fakeModels>;
beforeAll(async () => {
  fake = fakeModels();
  app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(errorsPlugin);
  await app.register(modelRoutes, { models: fake.service, prefix: '/api' });
  await app.ready();
});
afterAll(() => app.close());

describe('model routes', () => {
  it('lists the models and the default, answering only the documented fields', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/models' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      models: [
        { provider_id: 'mock', model_id: 'echo', context_limit: 8000, output_limit: 1000 },
        { provider_id: 'mock', model_id: 'alt', context_limit: 4000, output_limit: 500 },
      ],
      default: { provider: 'mock', model: 'echo' },
    });
  });

  it('sets the default model and answers it', async () => {
    const res = await app.inject({
      method: 'PUT',
      url: '/api/models/default',
      payload: { provider: 'mock', model: 'alt' },
    });
    expect(res.json()).toEqual({ ok: true, default: { provider: 'mock', model: 'alt' } });
    const list = await app.inject({ method: 'GET', url: '/api/models' });
    expect(list.json().default).toEqual({ provider: 'mock', model: 'alt' });
  });

  it('refuses a body without both fields before asking the service', async () => {
    const before = fake.received.length;
    for (const payload of [{ provider: 'mock' }, { provider: '', model: 'echo' }, {}]) {
      const res = await app.inject({ method: 'PUT', url: '/api/models/default', payload });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('invalid_request');
    }
    const res = await app.inject({
      method: 'PUT',
      url: '/api/models/default',
      payload: { provider: '', model: 'echo' },
    });
    expect(res.json().message).toBe('body.provider: provider is required');
    expect(fake.received.length).toBe(before);
  });

  it("relays the service's refusal of an unknown model as 400", async () => {
    const res = await app.inject({
      method: 'PUT',
      url: '/api/models/default',
      payload: { provider: 'mock', model: 'zzz' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_request', message: 'unknown model "mock/zzz"' });
  });

  it('answers a null default when the engine knows no model', async () => {
    fake.clear();
    expect((await app.inject({ method: 'GET', url: '/api/models' })).json().default).toBeNull();
  });
});
