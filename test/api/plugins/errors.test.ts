import Fastify, { type FastifyInstance } from 'fastify';
import {
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorsPlugin } from '../../../src/api/plugins/errors.js';
import { storeUnavailableMessage } from '../../../src/api/plugins/store-availability.js';
import { SecretsKeyError } from '../../../src/errors/secrets-errors.js';
import { NotFoundError } from '../../../src/errors/request-errors.js';

let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify({ logger: false });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(errorsPlugin);
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    '/things/:id',
    {
      schema: {
        params: z.object({ id: z.string().regex(/^\d+$/) }),
        querystring: z.object({ limit: z.coerce.number().int().max(10).optional() }),
        body: z.object({ name: z.string(), tags: z.array(z.string()).optional() }),
      },
    },
    async () => ({ ok: true }),
  );
  r.get('/missing', async () => {
    throw new NotFoundError('thing "x" not found');
  });
  r.get('/crash', async () => {
    throw new Error('db password is hunter2');
  });
  r.get('/internal', async () => {
    throw new SecretsKeyError('key file unreadable');
  });
  r.get('/redis-gone', async () => {
    throw new Error('Connection is closed.');
  });
  r.get('/refused', async () => {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), {
      code: 'ECONNREFUSED',
    });
  });
  await app.ready();
});
afterAll(() => app.close());

describe('errors plugin', () => {
  it('answers unknown routes 404 not_found naming the method and path without the query', async () => {
    const res = await app.inject({ method: 'DELETE', url: '/nowhere/at/all?token=secret' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      error: 'not_found',
      message: 'no route for DELETE /nowhere/at/all',
    });
  });

  it('renders schema failures as 400 invalid_request naming the part and path', async () => {
    const body = await app.inject({
      method: 'POST',
      url: '/things/1',
      payload: { name: 1, tags: ['a', 2] },
    });
    expect(body.statusCode).toBe(400);
    expect(body.json().error).toBe('invalid_request');
    expect(body.json().message).toMatch(/^body\.name: .+; body\.tags\.1: .+$/);

    const params = await app.inject({ method: 'POST', url: '/things/abc', payload: { name: 'x' } });
    expect(params.json().message).toMatch(/^params\.id: /);

    const query = await app.inject({
      method: 'POST',
      url: '/things/1?limit=99',
      payload: { name: 'x' },
    });
    expect(query.json().message).toMatch(/^querystring\.limit: /);

    const whole = await app.inject({
      method: 'POST',
      url: '/things/1',
      headers: { 'content-type': 'application/json' },
      payload: '[]',
    });
    expect(whole.json().message).toMatch(/^body: /);
  });

  it('renders catalogue errors with their code, status and message', async () => {
    const res = await app.inject({ method: 'GET', url: '/missing' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not_found', message: 'thing "x" not found' });
  });

  it('hides crashes and internal errors behind 500 internal_error with the request id', async () => {
    for (const url of ['/crash', '/internal']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({
        error: 'internal_error',
        message: expect.stringMatching(/^internal error \(request .+\)$/),
      });
      expect(res.body).not.toContain('hunter2');
      expect(res.body).not.toContain('key file');
    }
  });

  it('answers 503 service_unavailable when Redis went away during the request', async () => {
    for (const url of ['/redis-gone', '/refused']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        error: 'service_unavailable',
        message: storeUnavailableMessage,
      });
    }
  });
});
