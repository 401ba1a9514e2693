import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsPlugin } from '../../../src/api/plugins/errors.js';
import {
  securityHeaders,
  securityHeadersPlugin,
} from '../../../src/api/plugins/security-headers.js';

let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify();
  await app.register(errorsPlugin);
  await app.register(securityHeadersPlugin);
  app.get('/ok', async () => ({ ok: true }));
  app.get('/text', async (_req, reply) => reply.type('text/plain').send('OK'));
  app.get('/fail', async () => {
    throw new Error('boom');
  });
  app.register(async (scope) => {
    scope.get('/nested', async () => 'nested');
  });
  await app.ready();
});
afterAll(() => app.close());

describe('security headers', () => {
  it('are the five the spec requires', () => {
    expect(securityHeaders).toEqual({
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'x-xss-protection': '1; mode=block',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
    });
  });

  it('are set on every response: success, text, nested scope, error and not found', async () => {
    for (const url of ['/ok', '/text', '/nested', '/fail', '/nothing']) {
      const res = await app.inject({ method: 'GET', url });
      for (const [name, value] of Object.entries(securityHeaders)) {
        expect(res.headers[name], `${url} ${name}`).toBe(value);
      }
    }
  });

  it('override a header a route set itself', async () => {
    const local = Fastify();
    await local.register(securityHeadersPlugin);
    local.get('/framed', async (_req, reply) =>
      reply.header('x-frame-options', 'SAMEORIGIN').send('x'),
    );
    const res = await local.inject({ method: 'GET', url: '/framed' });
    expect(res.headers['x-frame-options']).toBe('DENY');
    await local.close();
  });
});
