import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { adminToken, bearerInject } from '../../support/auth.js';
import { tickState } from '../../schedules/ticks.js';

const script = {
  name: 'nightly',
  cron_expr: '0 3 * * *',
  type: 'script',
  script_name: 'report.star',
};

describe('schedule endpoints', () => {
  let t: TestApp;
  let token = '';

  beforeAll(async () => {
    // Many requests from one client: the per-client limit is not what these tests are about.
    t = await createTestApp(
      {
        'admin.rate_limit.api_per_minute': 100_000,
        'webhooks.channels': { ops: 'http://127.0.0.1:9/hook' },
      },
      'schedapi',
    );
    token = await adminToken(t);
    await t.services.scripts.create('report.star', 'result = 1\n', 'admin');
  });
  afterAll(() => t?.close());

  const inject = bearerInject(
    () => t,
    () => token,
  );

  it('needs a bearer token', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/schedules' });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('unauthorized');
  });

  const post = (body: unknown) =>
    inject({ method: 'POST', url: '/api/schedules', payload: body as object });

  it('creates a schedule (201, no last_run fields) and lists and reads it', async () => {
    const res = await post(script);
    expect(res.statusCode).toBe(201);
    const s = res.json();
    expect(s).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      name: 'nightly',
      cron_expr: '0 3 * * *',
      type: 'script',
      enabled: true,
      script_name: 'report.star',
      run_once: false,
      timezone: 'UTC',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const one = await inject({ method: 'GET', url: `/api/schedules/${s.id}` });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ id: s.id, last_run_error: '', last_run_output: '' });
    expect(one.json().last_run_status).toBeUndefined();
    const list = await inject({ method: 'GET', url: '/api/schedules' });
    expect(list.json().schedules.map((x: { id: string }) => x.id)).toContain(s.id);
    // Enabled → a member of its (pattern, zone) group, whose tick scheduler exists.
    const tick = await tickState(t.ctx, s.id, '0 3 * * *');
    expect(tick.member).toBe(true);
    expect(tick.scheduler).toMatchObject({ pattern: '0 3 * * *', tz: 'UTC' });
  });

  it('answers 400 for invalid JSON, missing fields and type-specific requirements', async () => {
    const bad = await inject({
      method: 'POST',
      url: '/api/schedules',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('invalid_request');
    for (const body of [
      { cron_expr: '* * * * *', type: 'script', script_name: 'a.star' },
      { name: 'x', type: 'script', script_name: 'a.star' },
      { name: 'x', cron_expr: '* * * * *' },
      { name: 'x', cron_expr: '* * * * *', type: 'shell' },
      { name: 'x', cron_expr: '* * * * *', type: 'script' },
      { name: 'x', cron_expr: '* * * * *', type: 'agent' },
      { name: 'x', cron_expr: '* * * * *', type: 'agent', prompt: '   ' },
      { ...script, output_target: { provider: 'pigeon', channel_id: 'a' } },
      { ...script, timezone: 'Mars/Olympus' },
      { ...script, script_name: '../../etc/passwd' },
      { ...script, script_name: 'missing.star' },
      { ...script, output_target: { provider: 'telegram', channel_id: '@news' } },
      { ...script, output_target: { provider: 'slack', channel_id: '#general' } },
      { ...script, output_target: { provider: 'discord', channel_id: 'general' } },
      { ...script, output_target: { provider: 'webhook', channel_id: 'nowhere' } },
    ]) {
      const res = await post(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toBe('invalid_request');
    }
    const msg = (await post({ name: 'x', cron_expr: '* * * * *', type: 'agent' })).json().message;
    expect(msg).toMatch(/prompt: required when type is agent/);
    // Refused before anything is stored: a run would fail its script or its delivery every time.
    expect((await post({ ...script, script_name: 'missing.star' })).json().message).toBe(
      'body.script_name: script missing.star does not exist',
    );
    expect(
      (
        await post({ ...script, output_target: { provider: 'webhook', channel_id: 'nowhere' } })
      ).json().message,
    ).toMatch(/no webhook channel "nowhere" is configured \(configured: ops\)/);
    expect(
      (await post({ ...script, output_target: { provider: 'telegram', channel_id: '-1001234' } }))
        .statusCode,
    ).toBe(201);
  });

  it.each([
    ['* * *', /expected 5 fields .* got 3/],
    ['* * * * * * *', /got 7/],
    ['@daily', /got 1/],
    ['61 * * * *', /61 expected range 0-59/],
    ['0 25 * * *', /range 0-23/],
    ['*/0 * * * *', /every 0/],
    ['5-2 * * * *', /Invalid range/],
    ['junk junk junk junk junk', /invalid cron expression/],
    ['0 0 31 2 *', /invalid cron expression/],
  ])('rejects the cron expression %s', async (cron, message) => {
    const res = await post({ ...script, cron_expr: cron });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/cron_expr/);
    expect(res.json().message).toMatch(message);
  });

  it.each(['*/5 * * * *', '0 9 * * MON-FRI', '*/10 * * * * *', '0 0 1 1 *'])(
    'accepts the cron expression %s',
    async (cron) => {
      expect((await post({ ...script, cron_expr: cron })).statusCode).toBe(201);
    },
  );

  it('updates only the provided fields and re-syncs the scheduler', async () => {
    const s = (
      await post({ ...script, output_target: { provider: 'webhook', channel_id: 'ops' } })
    ).json();
    const res = await inject({
      method: 'PUT',
      url: `/api/schedules/${s.id}`,
      payload: { cron_expr: '*/15 * * * *', timezone: 'Europe/Paris' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      name: 'nightly',
      cron_expr: '*/15 * * * *',
      timezone: 'Europe/Paris',
      script_name: 'report.star',
      output_target: { provider: 'webhook', channel_id: 'ops' },
      last_run_error: '',
    });
    const moved = await tickState(t.ctx, s.id, '*/15 * * * *', 'Europe/Paris');
    expect(moved.member).toBe(true);
    expect(moved.scheduler).toMatchObject({ pattern: '*/15 * * * *', tz: 'Europe/Paris' });
    expect((await tickState(t.ctx, s.id, '0 3 * * *')).member).toBe(false);
    // Changing the type re-checks the fields the new type needs.
    const toAgent = await inject({
      method: 'PUT',
      url: `/api/schedules/${s.id}`,
      payload: { type: 'agent' },
    });
    expect(toAgent.statusCode).toBe(400);
    expect(toAgent.json().message).toMatch(/prompt/);
    const ok = await inject({
      method: 'PUT',
      url: `/api/schedules/${s.id}`,
      payload: { type: 'agent', prompt: 'summarise the day', output_target: null },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().type).toBe('agent');
    expect(ok.json().output_target).toBeUndefined();
    for (const payload of [
      { cron_expr: '* *' },
      { name: '' },
      { enabled: 'yes' },
      { timezone: 'Nowhere/X' },
    ]) {
      const r = await inject({ method: 'PUT', url: `/api/schedules/${s.id}`, payload });
      expect(r.statusCode, JSON.stringify(payload)).toBe(400);
    }
    const unknown = await inject({
      method: 'PUT',
      url: '/api/schedules/nope',
      payload: { name: 'a' },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toBe('not_found');
  });

  it('disables and enables (scheduler removed and restored), 404 for unknown ids', async () => {
    const s = (await post(script)).json();
    const off = await inject({ method: 'POST', url: `/api/schedules/${s.id}/disable` });
    expect(off.json()).toEqual({ status: 'disabled' });
    expect((await tickState(t.ctx, s.id, '0 3 * * *')).member).toBe(false);
    expect((await inject({ method: 'GET', url: `/api/schedules/${s.id}` })).json().enabled).toBe(
      false,
    );
    const on = await inject({ method: 'POST', url: `/api/schedules/${s.id}/enable` });
    expect(on.json()).toEqual({ status: 'enabled' });
    const back = await tickState(t.ctx, s.id, '0 3 * * *');
    expect(back.member).toBe(true);
    expect(back.scheduler).toMatchObject({ pattern: '0 3 * * *' });
    for (const action of ['enable', 'disable', 'run']) {
      const r = await inject({ method: 'POST', url: `/api/schedules/unknown/${action}` });
      expect(r.statusCode).toBe(404);
      expect(r.json().error).toBe('not_found');
    }
    expect((await inject({ method: 'GET', url: '/api/schedules/unknown' })).statusCode).toBe(404);
    expect((await inject({ method: 'GET', url: '/api/schedules/unknown/runs' })).statusCode).toBe(
      404,
    );
  });

  it('creates disabled schedules without a scheduler', async () => {
    const s = (await post({ ...script, enabled: false })).json();
    expect(s.enabled).toBe(false);
    expect((await tickState(t.ctx, s.id, '0 3 * * *')).member).toBe(false);
  });

  it('deletes (204, scheduler gone, then 404)', async () => {
    const s = (await post(script)).json();
    const del = await inject({ method: 'DELETE', url: `/api/schedules/${s.id}` });
    expect(del.statusCode).toBe(204);
    expect((await tickState(t.ctx, s.id, '0 3 * * *')).member).toBe(false);
    expect((await inject({ method: 'DELETE', url: `/api/schedules/${s.id}` })).statusCode).toBe(
      404,
    );
    expect((await inject({ method: 'GET', url: `/api/schedules/${s.id}` })).statusCode).toBe(404);
  });

  it('refuses unknown fields on update, naming them, and changes nothing', async () => {
    const s = (await post(script)).json();
    const res = await inject({
      method: 'PUT',
      url: `/api/schedules/${s.id}`,
      payload: { name: 'renamed', bogus: 1, colour: 'red' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_request');
    expect(res.json().message).toMatch(/bogus/);
    expect(res.json().message).toMatch(/colour/);
    expect((await inject({ method: 'GET', url: `/api/schedules/${s.id}` })).json().name).toBe(
      'nightly',
    );
  });

  it('answers 400 to run an agent schedule with no engine configured', async () => {
    const s = (
      await post({ name: 'ask', cron_expr: '0 9 * * *', type: 'agent', prompt: 'hi' })
    ).json();
    const res = await inject({ method: 'POST', url: `/api/schedules/${s.id}/run` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'invalid_request',
      message: `schedule ${s.id} cannot run: no AI engine is configured for agent schedules`,
    });
  });
});

describe('running an agent schedule when the configured engine does not answer', () => {
  it('answers 503 engine_unavailable', async () => {
    const t = await createTestApp(
      { 'engine.url': 'http://127.0.0.1:9', 'engine.request_timeout': 2000 },
      'schedengine',
    );
    try {
      const token = await adminToken(t);
      const headers = { authorization: `Bearer ${token}` };
      const s = (
        await t.app.inject({
          method: 'POST',
          url: '/api/schedules',
          headers,
          payload: { name: 'ask', cron_expr: '0 9 * * *', type: 'agent', prompt: 'hi' },
        })
      ).json();
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/schedules/${s.id}/run`,
        headers,
      });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        error: 'engine_unavailable',
        message: `schedule ${s.id} cannot run: the AI engine is not reachable`,
      });
    } finally {
      await t.close();
    }
  });
});
