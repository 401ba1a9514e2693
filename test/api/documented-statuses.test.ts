import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { buildAppDeps, buildCore, buildServerParts } from '../../src/cli/compose.js';
import { createTestContext, type TestContext } from '../support/app.js';
import { TEST_ADMIN } from '../support/auth.js';

type Operation = { responses: Record<string, unknown>; security?: unknown[] };
type ErrorAnswer = {
  content?: Record<string, { schema: { properties?: { error?: { enum?: string[] } } } }>;
};
type Doc = { paths: Record<string, Record<string, Operation>> };

/**
 * Each operation of the OpenAPI document, sent the requests any client can send (no token, a
 * body that is not JSON, one that is not valid JSON, one over the body limit, odd path values):
 * every status it answers is among its documented responses. A body that is not JSON was
 * answered 415 by operations that did not document 415 (issue 45).
 */
describe('documented statuses', () => {
  let base: TestContext;
  let app: FastifyInstance;
  let doc: Doc;
  let token = '';

  beforeAll(async () => {
    base = await createTestContext(
      { 'server.body_limit': 64 * 1024, 'admin.rate_limit.api_per_minute': 100_000 },
      'statuses',
    );
    const core = await buildCore(base.ctx);
    const parts = await buildServerParts(base.ctx, core, { superviseEngine: false });
    app = await buildApp(await buildAppDeps(base.ctx, core, parts));
    await app.ready();
    doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as Doc;
    await app.inject({
      method: 'POST',
      url: '/api/setup',
      payload: { ...TEST_ADMIN, confirm_password: TEST_ADMIN.password },
    });
    const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: TEST_ADMIN });
    const refresh = login.cookies.find((c) => c.name === 'refresh')?.value ?? '';
    const session = await app.inject({
      method: 'GET',
      url: '/api/session',
      cookies: { refresh },
    });
    token = (session.json() as { access_token: string }).access_token;
  });
  afterAll(async () => {
    await app?.close();
    await base?.close();
  });

  const operations = () =>
    Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/') && path !== '/api/sessions/{id}/chat')
      .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));

  /** The path with each `{param}` replaced by `value`. */
  const fill = (path: string, value: string) => path.replace(/\{[^}]+\}/g, value);

  it('answers only documented statuses to requests any client can send', async () => {
    const seen: string[] = [];
    const undocumented: string[] = [];
    for (const { path, method, op } of operations()) {
      const writes = method !== 'get';
      const url = fill(path, 'probe.star');
      const auth = { authorization: `Bearer ${token}` };
      const probes: Array<[string, InjectOptions]> = [
        ['no token', { url }],
        ['odd path value', { url: fill(path, '%E2%80%AE..%2F' + 'x'.repeat(300)), headers: auth }],
        ['odd path value', { url: fill(path, '%00'), headers: auth }],
        ['undecodable path', { url: fill(path, '%'), headers: auth }],
      ];
      if (writes) {
        probes.push(
          [
            'text/plain',
            { url, headers: { ...auth, 'content-type': 'text/plain' }, payload: 'hi' },
          ],
          [
            'form body',
            {
              url,
              headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
              payload: 'a=1',
            },
          ],
          [
            'not JSON',
            { url, headers: { ...auth, 'content-type': 'application/json' }, payload: '{' },
          ],
          [
            'over the body limit',
            {
              url,
              headers: { ...auth, 'content-type': 'application/json' },
              payload: JSON.stringify({ x: 'y'.repeat(70 * 1024) }),
            },
          ],
        );
      }
      for (const [what, probe] of probes) {
        const res = await app.inject({ ...probe, method: method.toUpperCase() as 'GET' });
        const status = String(res.statusCode);
        seen.push(status);
        const documented = op.responses[status] as ErrorAnswer | undefined;
        const codes = documented?.content?.['application/json']?.schema.properties?.error?.enum;
        const code = res.statusCode >= 400 ? (res.json() as { error?: unknown }).error : undefined;
        if (!documented || (codes !== undefined && !codes.includes(code as string))) {
          undocumented.push(`${method.toUpperCase()} ${path} (${what}): ${status} ${res.body}`);
        }
      }
    }
    expect(undocumented).toEqual([]);
    // The probes reached what they aim at.
    expect(seen).toEqual(expect.arrayContaining(['401', '400', '413', '415']));
  });

  it('names the 415 error code in every write, and never for reads', () => {
    for (const { path, method, op } of operations()) {
      const documented = '415' in op.responses;
      expect(documented, `${method} ${path}`).toBe(method !== 'get');
      if (!documented) continue;
      const answer = op.responses['415'] as {
        content: Record<string, { schema: { properties: { error: { enum: string[] } } } }>;
      };
      expect(answer.content['application/json']!.schema.properties.error.enum).toEqual([
        'unsupported_media_type',
      ]);
    }
  });
});
