import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBackup } from '../../../src/backup/open-backup.js';
import { existingSecretsKeys } from '../../../src/secrets/key.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { adminToken } from '../../support/auth.js';

describe('GET /api/backup', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({}, 'backup-route');
    await t.services.secrets.set('API_KEY', 'sk-route-3c9e1f7a5b2d');
  });
  afterAll(() => t?.close());

  it('needs the administrator', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/backup' });
    expect(res.statusCode).toBe(401);
  });

  it('streams the file steward backup writes, sealed with the secrets key, and records the download', async () => {
    const token = await adminToken(t);
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/backup',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="steward-backup-\d{8}-\d{6}\.jsonl"$/,
    );
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.rawPayload.includes('sk-route-3c9e1f7a5b2d')).toBe(false);
    const contents = openBackup(res.rawPayload, await existingSecretsKeys(t.ctx.config));
    expect(contents.header.schema_version).toBe(2);
    expect(contents.records.map((r) => r.key)).toEqual(
      expect.arrayContaining(['admin:user', 'secret:API_KEY', 'secrets:index']),
    );
    await new Promise((r) => setTimeout(r, 100));
    const audit = await t.services.audit.list({ action: 'backup' });
    expect(audit.entries[0]).toMatchObject({
      action: 'backup.download',
      actor: 'admin',
      outcome: 'ok',
    });
  });

  it('is in the OpenAPI document as a file download for the administrator', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/openapi.json' });
    const op = (
      res.json() as {
        paths: Record<
          string,
          Record<string, { security: unknown; responses: Record<string, any> }>
        >;
      }
    ).paths['/api/backup']?.get;
    expect(op?.security).toEqual([{ bearer: [] }]);
    expect(op?.responses['200']?.content).toEqual({
      'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
    });
    expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(['401', '429']));
  });
});
