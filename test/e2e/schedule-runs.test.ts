import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueueClient } from '../../src/queue/client.js';
import { freePort } from '../../src/store/embedded-redis.js';
import type { RunningWorkers } from '../../src/workers/start.js';
import { createTestApp, startTestWorkers, type TestApp } from '../support/app.js';
import { adminToken, bearerInject } from '../support/auth.js';
import { scheduleHarness, waitFor } from '../schedules/harness.js';
import { tickState } from '../schedules/ticks.js';

const script = {
  name: 'nightly',
  cron_expr: '0 3 * * *',
  type: 'script',
  script_name: 'report.star',
};

describe('schedule runs through the API', () => {
  let t: TestApp;
  let workers: RunningWorkers;
  let token = '';

  beforeAll(async () => {
    // Many requests from one client: the per-client limit is not what these tests are about.
    t = await createTestApp({ 'admin.rate_limit.api_per_minute': 100_000 }, 'schedrun');
    token = await adminToken(t);
    workers = await startTestWorkers(t);
    for (const [name, source] of [
      ['report.star', 'def main():\n    return {"ran": "report"}\n'],
      ['failing.star', 'def main():\n    fail("disk full")\n'],
    ]) {
      await t.services.scripts.create(name as string, source as string, 'admin');
      await t.services.scripts.approve(name as string, 'admin');
    }
    await t.services.scripts.create('pending.star', 'result = 1\n', 'admin');
  });
  afterAll(async () => {
    await workers?.close();
    await t?.close();
  });

  const inject = bearerInject(
    () => t,
    () => token,
  );

  const post = (body: unknown) =>
    inject({ method: 'POST', url: '/api/schedules', payload: body as object });
  const read = async (id: string) =>
    (await inject({ method: 'GET', url: `/api/schedules/${id}` })).json();

  it('runs on demand: triggered, then last_run_* and one history entry with scheduled_at null', async () => {
    const s = (await post({ ...script, enabled: false })).json();
    const res = await inject({ method: 'POST', url: `/api/schedules/${s.id}/run` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'triggered' });
    const done = await waitFor(async () => {
      const r = (await inject({ method: 'GET', url: `/api/schedules/${s.id}` })).json();
      return r.last_run_status === 'success' ? r : null;
    });
    expect(done).toMatchObject({
      enabled: false,
      last_run_status: 'success',
      last_run_error: '',
      last_run_output: '{\n  "ran": "report"\n}',
      last_run_at: expect.any(String),
    });
    const runs = (await inject({ method: 'GET', url: `/api/schedules/${s.id}/runs` })).json().runs;
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      scheduled_at: null,
      status: 'success',
      error: '',
      output: '{\n  "ran": "report"\n}',
    });
    expect(runs[0].delivery).toBeUndefined();
  });

  it.each([
    ['failing.star', /disk full/],
    ['pending.star', /pending approval/],
  ])('records a run of %s as last_run_status error with the reason', async (name, reason) => {
    const s = (await post({ ...script, script_name: name, enabled: false })).json();
    expect((await inject({ method: 'POST', url: `/api/schedules/${s.id}/run` })).statusCode).toBe(
      200,
    );
    const done = await waitFor(async () => {
      const r = await read(s.id);
      return r.last_run_status === 'error' ? r : null;
    }, 15_000);
    expect(done.last_run_error).toMatch(reason);
  });

  it("a 6-field every-second cron shows the approved script's output within 3 s", async () => {
    const started = Date.now();
    const s = (await post({ ...script, name: 'tick', cron_expr: '*/1 * * * * *' })).json();
    const done = await waitFor(async () => {
      const r = await read(s.id);
      return r.last_run_status === 'success' ? r : null;
    }, 10_000);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(done.last_run_output).toBe('{\n  "ran": "report"\n}');
    await inject({ method: 'POST', url: `/api/schedules/${s.id}/disable` });
    const runs = (await inject({ method: 'GET', url: `/api/schedules/${s.id}/runs` })).json().runs;
    expect(runs[0]).toMatchObject({
      status: 'success',
      scheduled_at: expect.stringMatching(/\.000Z$/),
    });
  });

  it('refuses a script changed since approval (script_modified reason)', async () => {
    await t.services.scripts.create('drift.star', 'result = 1\n', 'admin');
    await t.services.scripts.approve('drift.star', 'admin');
    await t.services.scripts.update('drift.star', 'result = 2\n', 'admin');
    const s = (await post({ ...script, script_name: 'drift.star', enabled: false })).json();
    await inject({ method: 'POST', url: `/api/schedules/${s.id}/run` });
    const done = await waitFor(async () => {
      const r = await read(s.id);
      return r.last_run_status === 'error' ? r : null;
    }, 15_000);
    expect(done.last_run_error).toMatch(/pending approval|changed since it was approved/);
  });

  it('answers 400 to run a schedule whose script does not exist', async () => {
    await t.services.scripts.create('gone.star', 'result = 1\n', 'admin');
    const s = (await post({ ...script, script_name: 'gone.star', enabled: false })).json();
    await t.services.scripts.remove('gone.star');
    const res = await inject({ method: 'POST', url: `/api/schedules/${s.id}/run` });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/gone.star does not exist/);
  });

  it('run_once disables itself (and drops its scheduler) after one manual run', async () => {
    const s = (await post({ ...script, run_once: true })).json();
    expect(s.enabled).toBe(true);
    await inject({ method: 'POST', url: `/api/schedules/${s.id}/run` });
    const done = await waitFor(async () => {
      const r = (await inject({ method: 'GET', url: `/api/schedules/${s.id}` })).json();
      return r.last_run_status === 'success' && !r.enabled ? r : null;
    });
    expect(done.enabled).toBe(false);
    await waitFor(async () => !(await tickState(t.ctx, s.id, '0 3 * * *')).member);
  });
});

describe('schedule run availability', () => {
  it('answers 503 when the queue connection is down', async () => {
    // A real queue client pointed at a port where nothing listens: never ready.
    const dead = createQueueClient({
      url: `redis://127.0.0.1:${await freePort()}`,
      prefix: 'dead:',
    });
    const h = await scheduleHarness({}, { queues: dead });
    try {
      const s = await h.schedules.store.create({
        name: 'n',
        cron_expr: '0 3 * * *',
        type: 'script',
        script_name: 'report.star',
        enabled: false,
        run_once: false,
        timezone: 'UTC',
      });
      const res = await h.app.inject({ method: 'POST', url: `/api/schedules/${s.id}/run` });
      expect(res.statusCode).toBe(503);
      expect(res.json().error).toBe('service_unavailable');
    } finally {
      await h.close();
      await dead.close();
    }
  });

  it('answers 400 to run an agent schedule when no engine is wired', async () => {
    const h = await scheduleHarness();
    try {
      const s = (
        await h.app.inject({
          method: 'POST',
          url: '/api/schedules',
          payload: {
            name: 'a',
            cron_expr: '0 * * * *',
            type: 'agent',
            prompt: 'hi',
            enabled: false,
          },
        })
      ).json();
      const res = await h.app.inject({ method: 'POST', url: `/api/schedules/${s.id}/run` });
      expect(res.statusCode).toBe(400);
    } finally {
      await h.close();
    }
  });
});
