import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BadRequestError,
  NotFoundError,
  ServiceUnavailableError,
} from '../../src/errors/request-errors.js';
import { createSchedules, type Schedules } from '../../src/schedules/create-schedules.js';
import {
  createScheduleService,
  type ScheduleService,
} from '../../src/schedules/schedule-service.js';
import { keys } from '../../src/store/keys.js';
import { createTestContext, type TestContext } from '../support/app.js';
import { baseScheduleDeps } from './harness.js';
import { tickState } from './ticks.js';

describe('schedule service', () => {
  let t: TestContext;
  let schedules: Schedules;
  let service: ScheduleService;

  beforeEach(async () => {
    t = await createTestContext(
      { 'webhooks.channels': { ops: 'http://127.0.0.1:9/hook' } },
      'schedsvc',
    );
    schedules = createSchedules(baseScheduleDeps(t.ctx));
    service = schedules.service;
  });
  afterEach(() => t.close());

  const script = (extra: object = {}) =>
    service.create({
      name: 'daily',
      cron_expr: '0 8 * * *',
      type: 'script',
      script_name: 'report',
      ...extra,
    });
  const armedAt = async (id: string) =>
    Number(await t.ctx.redis.hget(keys.schedule(id), 'armed_at'));

  it('creates with the defaults (enabled, not run once, UTC), the .star name, and joins its tick group', async () => {
    const s = await script();
    expect(s).toMatchObject({
      enabled: true,
      run_once: false,
      timezone: 'UTC',
      script_name: 'report.star',
    });
    expect(s).not.toHaveProperty('last_run_error');
    expect(await tickState(t.ctx, s.id, '0 8 * * *')).toMatchObject({ member: true, size: 1 });
    expect(await service.get(s.id)).toMatchObject({
      id: s.id,
      last_run_error: '',
      last_run_output: '',
    });
  });

  it('refuses an invalid schedule with 400 and stores nothing', async () => {
    await expect(script({ cron_expr: '0 8 * *' })).rejects.toBeInstanceOf(BadRequestError);
    await expect(
      service.create({ name: 'a', cron_expr: '0 8 * * *', type: 'agent' }),
    ).rejects.toThrow('body.prompt: required when type is agent');
    expect(await service.list()).toEqual([]);
  });

  it('a disabled schedule is stored but in no tick group', async () => {
    const s = await script({ enabled: false });
    expect((await tickState(t.ctx, s.id, '0 8 * * *')).member).toBe(false);
    expect((await service.list()).map((x) => x.id)).toEqual([s.id]);
  });

  it('update writes only the given fields; null clears an optional one', async () => {
    const s = await script({ output_target: { provider: 'webhook', channel_id: 'ops' } });
    const u = await service.update(s.id, { name: 'renamed', output_target: null });
    expect(u).toMatchObject({
      name: 'renamed',
      cron_expr: '0 8 * * *',
      script_name: 'report.star',
    });
    expect(u).not.toHaveProperty('output_target');
    expect((await service.get(s.id)).output_target).toBeUndefined();
  });

  it('update validates the merged schedule: changing type re-checks its requirements', async () => {
    const s = await script();
    await expect(service.update(s.id, { type: 'agent' })).rejects.toThrow(
      'body.prompt: required when type is agent',
    );
    expect((await service.get(s.id)).type).toBe('script');
    const agent = await service.update(s.id, {
      type: 'agent',
      prompt: 'Brief me',
      script_name: null,
    });
    expect(agent).toMatchObject({ type: 'agent', prompt: 'Brief me' });
    expect(agent).not.toHaveProperty('script_name');
  });

  it('re-arms misfire accounting when the timing changes or it is enabled, not on other edits', async () => {
    const s = await script();
    const armed = await armedAt(s.id);
    await new Promise((r) => setTimeout(r, 5));
    await service.update(s.id, { name: 'x' });
    expect(await armedAt(s.id)).toBe(armed);
    await service.update(s.id, { cron_expr: '0 9 * * *' });
    const rearmed = await armedAt(s.id);
    expect(rearmed).toBeGreaterThan(armed);
    expect((await tickState(t.ctx, s.id, '0 9 * * *')).member).toBe(true);
    expect((await tickState(t.ctx, s.id, '0 8 * * *')).scheduler).toBeFalsy();
    await service.setEnabled(s.id, false);
    expect(await armedAt(s.id)).toBe(rearmed);
    expect((await tickState(t.ctx, s.id, '0 9 * * *')).member).toBe(false);
    await new Promise((r) => setTimeout(r, 5));
    await service.setEnabled(s.id, true);
    expect(await armedAt(s.id)).toBeGreaterThan(rearmed);
    expect((await tickState(t.ctx, s.id, '0 9 * * *')).member).toBe(true);
  });

  it('answers 404 for unknown ids on every operation', async () => {
    for (const op of [
      () => service.get('nope'),
      () => service.runs('nope'),
      () => service.update('nope', { name: 'x' }),
      () => service.setEnabled('nope', true),
      () => service.remove('nope'),
      () => service.trigger('nope'),
    ]) {
      await expect(op()).rejects.toBeInstanceOf(NotFoundError);
    }
  });

  it('remove deletes the schedule and takes it out of its tick group', async () => {
    const s = await script();
    await service.remove(s.id);
    expect(await tickState(t.ctx, s.id, '0 8 * * *')).toMatchObject({ member: false, size: 0 });
    expect((await tickState(t.ctx, s.id, '0 8 * * *')).scheduler).toBeFalsy();
    await expect(service.remove(s.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('concurrent updates converge: the tick group matches the last stored cron', async () => {
    const s = await script();
    const crons = ['1 8 * * *', '2 8 * * *', '3 8 * * *', '4 8 * * *'];
    await Promise.all(crons.map((cron_expr) => service.update(s.id, { cron_expr })));
    const stored = (await service.get(s.id)).cron_expr;
    expect((await tickState(t.ctx, s.id, stored)).member).toBe(true);
    const schedulers = await t.ctx.queues.queue('scheduleRuns').getJobSchedulers(0, -1);
    expect(schedulers).toHaveLength(1);
  });

  describe('trigger', () => {
    const serviceWith = (deps: {
      scriptExists?: (name: string) => Promise<boolean>;
      agentAvailable?: () => boolean;
      available?: boolean;
    }) =>
      createScheduleService({
        store: schedules.store,
        sync: schedules.sync,
        queues: { ...t.ctx.queues, available: () => deps.available ?? true },
        ...(deps.scriptExists ? { scriptExists: deps.scriptExists } : {}),
        ...(deps.agentAvailable ? { agentAvailable: deps.agentAvailable } : {}),
      });

    it('enqueues a manual run with no fire time under a manual- job id', async () => {
      const s = await script({ enabled: false });
      await serviceWith({ scriptExists: async (n) => n === 'report.star' }).trigger(s.id);
      const jobs = await t.ctx.queues
        .queue('scheduleRuns')
        .getJobs(['waiting', 'delayed', 'prioritized']);
      expect(jobs).toHaveLength(1);
      expect(jobs[0]?.id).toMatch(/^manual-[A-Za-z0-9_-]{16}$/);
      expect(jobs[0]?.data).toEqual({ scheduleId: s.id, fireTime: null });
      expect(jobs[0]?.opts.attempts).toBe(1);
    });

    it('answers 400 for a script that does not exist, and for an agent schedule with no engine', async () => {
      const s = await script();
      await expect(serviceWith({ scriptExists: async () => false }).trigger(s.id)).rejects.toThrow(
        `schedule ${s.id} cannot run: script report.star does not exist`,
      );
      const a = await service.create({
        name: 'a',
        cron_expr: '0 8 * * *',
        type: 'agent',
        prompt: 'p',
      });
      const err = await serviceWith({ agentAvailable: () => false })
        .trigger(a.id)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect((err as Error).message).toBe(
        `schedule ${a.id} cannot run: no AI engine is configured for agent schedules`,
      );
    });

    it('answers 503 when the queue is unavailable, enqueuing nothing', async () => {
      const s = await script();
      await expect(serviceWith({ available: false }).trigger(s.id)).rejects.toBeInstanceOf(
        ServiceUnavailableError,
      );
      expect(await t.ctx.queues.queue('scheduleRuns').getJobCounts('waiting')).toEqual({
        waiting: 0,
      });
    });
  });
});
