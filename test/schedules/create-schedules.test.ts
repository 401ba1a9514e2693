import { afterEach, describe, expect, it } from 'vitest';
import { createSchedules } from '../../src/schedules/create-schedules.js';
import type { DeliveryProvider } from '../../src/schedules/delivery/provider.js';
import type { RunScript } from '../../src/schedules/run-executor.js';
import { createTestContext, type TestContext } from '../support/app.js';
import { baseScheduleDeps } from './harness.js';
import { tickState } from './ticks.js';

const okScript: RunScript = async () => ({ success: true, result: 'ok', duration_ms: 1, logs: [] });

describe('createSchedules', () => {
  let t: TestContext | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('keeps run claims longer than every way a firing can come back', async () => {
    t = await createTestContext(
      { 'schedules.lock_ttl': '10s', 'schedules.misfire_window': '5m' },
      'mksched',
    );
    const s = createSchedules(baseScheduleDeps(t.ctx));
    expect(s.leaseMs).toBe(10_000);
    expect(s.claimRetentionMs).toBe(5 * 60_000 + 60_000);
    await t.close();
    t = await createTestContext(
      { 'schedules.lock_ttl': '1m', 'schedules.misfire_window': '10s' },
      'mksched',
    );
    expect(createSchedules(baseScheduleDeps(t.ctx)).claimRetentionMs).toBe(2 * 60_000 + 60_000);
  });

  it('registers the webhook provider from config; given providers add to it or replace it', async () => {
    t = await createTestContext({}, 'mksched');
    const telegram: DeliveryProvider = { deliver: async () => {} };
    const webhook: DeliveryProvider = { deliver: async () => {} };
    expect(Object.keys(createSchedules(baseScheduleDeps(t.ctx)).providers)).toEqual(['webhook']);
    const withChat = createSchedules({ ...baseScheduleDeps(t.ctx), providers: { telegram } });
    expect(withChat.providers.telegram).toBe(telegram);
    expect(withChat.providers.webhook).toBeDefined();
    const replaced = createSchedules({ ...baseScheduleDeps(t.ctx), providers: { webhook } });
    expect(replaced.providers.webhook).toBe(webhook);
  });

  it("queues a run's delivery with webhooks.retries retries and exponential backoff", async () => {
    t = await createTestContext(
      { 'webhooks.retries': 2, 'webhooks.channels': { ops: 'http://127.0.0.1:9/hook' } },
      'mksched',
    );
    const s = createSchedules({ ...baseScheduleDeps(t.ctx), runScript: okScript });
    const created = await s.service.create({
      name: 'd',
      cron_expr: '0 8 * * *',
      type: 'script',
      script_name: 'd.star',
      output_target: { provider: 'webhook', channel_id: 'ops' },
    });
    await s.executor.execute({ scheduleId: created.id, fireTime: null, jobId: 'manual-1' });
    const jobs = await t.ctx.queues
      .queue('deliveries')
      .getJobs(['waiting', 'delayed', 'prioritized']);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.data).toMatchObject({
      scheduleId: created.id,
      provider: 'webhook',
      channelId: 'ops',
    });
    expect(jobs[0]?.opts).toMatchObject({
      attempts: 3,
      backoff: { type: 'exponential', delay: 1000 },
    });
  });

  it('takes a run_once schedule out of its tick group once it ran', async () => {
    t = await createTestContext({}, 'mksched');
    const s = createSchedules({ ...baseScheduleDeps(t.ctx), runScript: okScript });
    const created = await s.service.create({
      name: 'once',
      cron_expr: '0 8 * * *',
      type: 'script',
      script_name: 'o.star',
      run_once: true,
    });
    expect((await tickState(t.ctx, created.id, '0 8 * * *')).member).toBe(true);
    await s.executor.execute({ scheduleId: created.id, fireTime: null, jobId: 'manual-1' });
    const after = await tickState(t.ctx, created.id, '0 8 * * *');
    expect(after.member).toBe(false);
    expect(after.scheduler).toBeFalsy();
  });

  it('lets the service refuse manual runs it cannot do: no engine, or a missing script', async () => {
    t = await createTestContext({}, 'mksched');
    // The script existed when the schedule was made, and is gone by the time it is run.
    let exists = true;
    const s = createSchedules({ ...baseScheduleDeps(t.ctx), scriptExists: async () => exists });
    const agent = await s.service.create({
      name: 'a',
      cron_expr: '0 8 * * *',
      type: 'agent',
      prompt: 'p',
    });
    await expect(s.service.trigger(agent.id)).rejects.toThrow(/no AI engine is configured/);
    const script = await s.service.create({
      name: 's',
      cron_expr: '0 8 * * *',
      type: 'script',
      script_name: 'x.star',
    });
    exists = false;
    await expect(s.service.trigger(script.id)).rejects.toThrow(/script x\.star does not exist/);
    await expect(
      s.service.create({
        name: 't',
        cron_expr: '0 8 * * *',
        type: 'script',
        script_name: 'x.star',
      }),
    ).rejects.toThrow(/body\.script_name: script x\.star does not exist/);
    const withEngine = createSchedules({ ...baseScheduleDeps(t.ctx), runAgent: async () => 'hi' });
    await expect(withEngine.service.trigger(agent.id)).resolves.toBeUndefined();
  });
});
