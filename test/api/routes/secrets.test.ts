import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsPlugin } from '../../../src/api/plugins/errors.js';
import { secretRoutes } from '../../../src/api/routes/secrets.js';
import { createSecretCrypto, generateSecretsKey } from '../../../src/secrets/crypto.js';
import {
  createRedactionService,
  type RedactionService,
} from '../../../src/secrets/redaction-service.js';
import { createSecretService } from '../../../src/secrets/secret-service.js';
import { createRedactionSetRepository } from '../../../src/store/redaction-set-repository.js';
import type { Redis } from '../../../src/store/redis.js';
import { createSecretRepository } from '../../../src/store/secret-repository.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../../support/redis.js';

const VALUE = 'route-secret-value-0123456789';

describe('secret routes', () => {
  const prefix = uniquePrefix('secroutes');
  let redis: Redis;
  let app: FastifyInstance;
  let redaction: RedactionService;
  const logged: string[] = [];

  beforeAll(async () => {
    redis = storeRedis(prefix);
    const crypto = createSecretCrypto(generateSecretsKey());
    const secrets = createSecretService({ secrets: createSecretRepository(redis), crypto });
    redaction = createRedactionService({
      redactionSet: createRedactionSetRepository({ redis }),
      crypto,
      pollMs: 60_000,
    });
    await redaction.ready;
    app = Fastify({
      // Fastify's default (100) answers 414 for valid names of 101–128 characters.
      routerOptions: { maxParamLength: 256 },
      logger: { level: 'trace', stream: { write: (line: string) => logged.push(line) } },
    });
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await app.register(errorsPlugin);
    await app.register(secretRoutes, {
      prefix: '/api',
      secrets,
      declaredNames: async () => ['DECLARED_ONLY', 'API_KEY'],
      redaction,
    });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await redaction.close();
    await dropPrefix(prefix);
    redis.disconnect();
  });

  it('lists declared names, unset', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/secrets' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      secrets: [
        { name: 'API_KEY', set: false, last_updated: null },
        { name: 'DECLARED_ONLY', set: false, last_updated: null },
      ],
    });
  });

  it('sets a value, never returning it, and redacts it at once', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/secrets/API_KEY',
      payload: { value: VALUE },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ name: 'API_KEY', set: true });
    expect(redaction.redact(`k=${VALUE}`)).toBe('k=[REDACTED:API_KEY]');
    const list = await app.inject({ method: 'GET', url: '/api/secrets' });
    expect(list.body).not.toContain(VALUE);
    const entry = (
      list.json() as { secrets: Array<{ name: string; set: boolean; last_updated: string }> }
    ).secrets[0];
    expect(entry).toMatchObject({ name: 'API_KEY', set: true });
    expect(new Date(entry?.last_updated ?? '').toISOString()).toBe(entry?.last_updated);
  });

  it('warns about short values', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/secrets/PIN',
      payload: { value: 'abc' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      name: 'PIN',
      set: true,
      warning: expect.stringMatching(/too short/),
    });
  });

  it('answers 400 invalid_request for bad names and values, without echoing the value', async () => {
    const cases = [
      { url: '/api/secrets/1BAD', payload: { value: VALUE } },
      { url: '/api/secrets/has-dash', payload: { value: VALUE } },
      { url: `/api/secrets/${'A'.repeat(129)}`, payload: { value: VALUE } },
      { url: '/api/secrets/GOOD', payload: { value: '' } },
      { url: '/api/secrets/GOOD', payload: { value: 42 } },
      { url: '/api/secrets/GOOD', payload: {} },
      { url: '/api/secrets/GOOD', payload: { value: `${VALUE}-`.repeat(3000) } },
    ];
    for (const c of cases) {
      const res = await app.inject({ method: 'POST', ...c });
      expect(res.statusCode, c.url).toBe(400);
      expect(res.json().error).toBe('invalid_request');
      expect(res.body).not.toContain(VALUE);
    }
  });

  it('accepts a name of 128 characters', async () => {
    const name = `L${'o'.repeat(127)}`;
    const res = await app.inject({
      method: 'POST',
      url: `/api/secrets/${name}`,
      payload: { value: VALUE },
    });
    expect(res.statusCode).toBe(200);
    expect((await app.inject({ method: 'DELETE', url: `/api/secrets/${name}` })).statusCode).toBe(
      204,
    );
  });

  it('deletes (204), then 404 not_found', async () => {
    const first = await app.inject({ method: 'DELETE', url: '/api/secrets/PIN' });
    expect(first.statusCode).toBe(204);
    const again = await app.inject({ method: 'DELETE', url: '/api/secrets/PIN' });
    expect(again.statusCode).toBe(404);
    expect(again.json().error).toBe('not_found');
  });

  it('never logged a value', () => {
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.join('\n')).not.toContain(VALUE);
  });
});
