import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/runtime/audit-entry.js';
import { TEST_ADMIN } from '../support/auth.js';
import { createScriptsHarness, type ScriptsHarness } from '../scripts/harness.js';

const VALUE = 'sk-audit-never-stored-3f9c2a';

/**
 * The audit log records what the administrator does through the API and the UI, with the channel
 * and outcome, never a secret value or a password, and the chain verifies afterwards.
 */
describe('the audit trail of administrator actions', () => {
  let h: ScriptsHarness;
  beforeAll(async () => {
    h = await createScriptsHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  const entries = async (query = '') =>
    (await h.call('GET', `/api/audit?limit=200${query}`)).json().entries as AuditEntry[];

  it('records logins, script changes with hash and channel, secrets by name, schedules', async () => {
    const login = (password: string) =>
      h.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { username: TEST_ADMIN.username, password },
      });
    expect((await login('wrong password here')).statusCode).toBe(401);
    expect((await login(TEST_ADMIN.password)).statusCode).toBe(200);

    const ui = { 'x-steward-client': 'ui', authorization: `Bearer ${h.token}` };
    const created = await h.app.inject({
      method: 'POST',
      url: '/api/scripts',
      headers: ui,
      payload: { name: 'audited.star', source: 'def main():\n    return 1\n' },
    });
    expect(created.statusCode).toBe(201);
    const hash = created.json().hash as string;
    expect(
      (
        await h.call('POST', '/api/scripts/audited.star/approve', {
          hash: 'sha256:' + '0'.repeat(64),
        })
      ).statusCode,
    ).toBe(409);
    expect((await h.call('POST', '/api/scripts/audited.star/approve', { hash })).statusCode).toBe(
      200,
    );
    expect((await h.call('POST', '/api/secrets/AUDIT_KEY', { value: VALUE })).statusCode).toBe(200);
    const schedule = await h.call('POST', '/api/schedules', {
      name: 'nightly',
      cron_expr: '0 3 * * *',
      type: 'script',
      script_name: 'audited.star',
    });
    expect(schedule.statusCode, schedule.body).toBe(201);

    const log = await entries();
    const find = (action: string, outcome = 'ok') =>
      log.find((e) => e.action === action && e.outcome === outcome);
    expect(find('auth.login', 'failed')).toMatchObject({ actor: expect.stringMatching(/^ip:/) });
    expect(find('auth.login')).toMatchObject({
      actor: TEST_ADMIN.username,
      target: TEST_ADMIN.username,
    });
    expect(find('script.create')).toMatchObject({
      channel: 'ui',
      target: 'audited.star',
      details: expect.objectContaining({ hash }),
    });
    expect(find('script.approve', 'refused')).toMatchObject({
      channel: 'api',
      details: expect.objectContaining({ error: 'script_modified' }),
    });
    expect(find('script.approve')).toMatchObject({ details: expect.objectContaining({ hash }) });
    expect(find('secret.set')).toMatchObject({ target: 'AUDIT_KEY' });
    expect(find('schedule.create')).toMatchObject({
      details: expect.objectContaining({ name: 'nightly' }),
    });
    const text = JSON.stringify(log);
    expect(text).not.toContain(VALUE);
    expect(text).not.toContain(TEST_ADMIN.password);
    expect(text).not.toContain('wrong password here');
    expect(await h.services.audit.verify()).toMatchObject({ ok: true });
  });
});
