import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { stewardApp } from '../../src/api/app.js';
import { openApiPath } from '../../src/api/openapi.js';
import { buildAppDeps, buildCore, buildServerParts } from '../../src/cli/compose.js';
import { createTestContext, type TestContext } from '../support/app.js';

interface Operation {
  security?: unknown[];
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
  requestBody?: unknown;
}
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>> };

describe('GET /api/openapi.json', () => {
  let base: TestContext;
  let app: FastifyInstance;
  let doc: Doc;
  /** Every /api route the app registers, as Fastify's onRoute hook sees them. */
  const routes: Array<{ method: string; url: string }> = [];

  beforeAll(async () => {
    base = await createTestContext({}, 'openapi');
    const core = await buildCore(base.ctx);
    const parts = await buildServerParts(base.ctx, core, { superviseEngine: false });
    app = Fastify();
    app.addHook('onRoute', (route) => {
      // Hidden routes are not operations: the catch-all that keeps unknown /api paths a JSON 404.
      if ((route.schema as { hide?: boolean } | undefined)?.hide) return;
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) {
        if (route.url.startsWith('/api/') && method !== 'HEAD')
          routes.push({ method, url: route.url });
      }
    });
    await app.register(stewardApp, await buildAppDeps(base.ctx, core, parts));
    await app.ready();
    const res = await app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json() as Doc;
  });
  afterAll(async () => {
    await app?.close();
    await base?.close();
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists every registered /api route', () => {
    // Fastify's own route table (hasRoute per method and URL) against the document's paths.
    const expected = [
      ['GET', '/api/setup/status'],
      ['POST', '/api/setup'],
      ['POST', '/api/auth/login'],
      ['GET', '/api/session'],
      ['POST', '/api/auth/logout'],
      ['GET', '/api/auth/me'],
      ['GET', '/api/scripts'],
      ['POST', '/api/scripts'],
      ['GET', '/api/scripts/:name'],
      ['PUT', '/api/scripts/:name'],
      ['DELETE', '/api/scripts/:name'],
      ['POST', '/api/scripts/:name/approve'],
      ['POST', '/api/scripts/:name/reject'],
      ['POST', '/api/scripts/:name/test'],
      ['GET', '/api/scripts/:name/history'],
      ['GET', '/api/scripts/:name/history/:commit'],
      ['GET', '/api/scripts/:name/diff'],
      ['POST', '/api/scripts/:name/restore/:commit'],
      ['GET', '/api/secrets'],
      ['POST', '/api/secrets/:name'],
      ['DELETE', '/api/secrets/:name'],
      ['GET', '/api/sessions'],
      ['POST', '/api/sessions'],
      ['GET', '/api/sessions/:id'],
      ['DELETE', '/api/sessions/:id'],
      ['GET', '/api/sessions/:id/messages'],
      ['GET', '/api/sessions/:id/chat'],
      ['GET', '/api/models'],
      ['PUT', '/api/models/default'],
      ['GET', '/api/schedules'],
      ['POST', '/api/schedules'],
      ['GET', '/api/schedules/:id'],
      ['PUT', '/api/schedules/:id'],
      ['DELETE', '/api/schedules/:id'],
      ['POST', '/api/schedules/:id/enable'],
      ['POST', '/api/schedules/:id/disable'],
      ['POST', '/api/schedules/:id/run'],
      ['GET', '/api/schedules/:id/runs'],
      ['GET', '/api/chat/pairings'],
      ['POST', '/api/chat/pairings/:code/approve'],
      ['POST', '/api/chat/pairings/:code/deny'],
      ['GET', '/api/chat/identities'],
      ['GET', '/api/status'],
    ] as const;
    for (const [method, url] of expected) {
      expect(app.hasRoute({ method, url }), `${method} ${url} is registered`).toBe(true);
    }
    // And the other direction: everything registered under /api is documented.
    for (const { method, url } of routes) {
      if (url === '/api/openapi.json') continue;
      expect(doc.paths[openApiPath(url)]?.[method.toLowerCase()], `${method} ${url}`).toBeTruthy();
    }
    expect(routes.length).toBeGreaterThanOrEqual(expected.length);
  });

  it('gives every operation its error bodies and its authentication', () => {
    const scripts = doc.paths['/api/scripts/{name}/approve']!.post!;
    expect(scripts.security).toEqual([{ bearer: [] }]);
    const conflict = scripts.responses['409']!.content!['application/json']!.schema as {
      properties: { error: { enum: string[] } };
    };
    expect(conflict.properties.error.enum).toEqual(
      expect.arrayContaining(['conflict', 'script_modified']),
    );
    expect(scripts.responses['200']).toBeTruthy();
    expect(doc.paths['/api/auth/login']!.post!.security).toEqual([]);
    expect(doc.paths['/api/session']!.get!.security).toEqual([{ refreshCookie: [] }]);
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith('/api/') || path === '/api/sessions/{id}/chat') continue;
      for (const [method, op] of Object.entries(ops)) {
        expect(op.responses['500'], `${method} ${path} documents 500`).toBeTruthy();
        expect(
          Object.keys(op.responses).some((s) => s.startsWith('2')),
          `${method} ${path} documents its success`,
        ).toBe(true);
      }
    }
  });

  it('leaves the web UI pages out', () => {
    expect(doc.paths['/']).toBeUndefined();
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/assets'))).toBe(false);
  });
});
