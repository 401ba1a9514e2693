import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCore, scriptWorkerDeps, type Core } from '../../src/cli/compose.js';
import { createSchedules, type Schedules } from '../../src/schedules/create-schedules.js';
import { startWorkers, type RunningWorkers } from '../../src/workers/start.js';
import { baseScheduleDeps } from '../schedules/harness.js';
import { createTestContext, type TestContext } from '../support/app.js';

async function waitFor<T>(probe: () => Promise<T | null>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('startWorkers', () => {
  let t: TestContext;
  let core: Core;
  let schedules: Schedules;
  let workers: RunningWorkers;

  beforeAll(async () => {
    t = await createTestContext({ 'scripts.threads': 1 }, 'workers');
    core = await buildCore(t.ctx);
    schedules = createSchedules({
      ...baseScheduleDeps(t.ctx),
      runScript: (request) => core.scriptRunner.run(request),
    });
    workers = await startWorkers(t.ctx, {
      schedules,
      scriptRuns: scriptWorkerDeps(core),
      audit: core.audit,
    });
  });
  afterAll(async () => {
    await workers.close();
    await t.close();
  });

  it('runs a script schedule end to end: schedule worker, script runner, script-runs worker', async () => {
    await core.scripts.create('hello.star', 'def main():\n    return {"hi": 1}\n', 'admin');
    await core.scripts.approve('hello.star', 'admin');
    const s = await schedules.service.create({
      name: 'hello',
      cron_expr: '0 8 * * *',
      type: 'script',
      script_name: 'hello.star',
      enabled: false,
    });
    await schedules.service.trigger(s.id);
    const [run] = await waitFor(async () => {
      const runs = await schedules.store.runs(s.id);
      return runs.length > 0 ? runs : null;
    });
    expect(run).toMatchObject({ status: 'success', output: JSON.stringify({ hi: 1 }, null, 2) });
  });

  it('close stops the workers: a later schedule job waits in its queue', async () => {
    await workers.close();
    const s = await schedules.service.create({
      name: 'after',
      cron_expr: '0 8 * * *',
      type: 'script',
      script_name: 'hello.star',
      enabled: false,
    });
    await schedules.service.trigger(s.id);
    await new Promise((r) => setTimeout(r, 300));
    expect(await schedules.store.runs(s.id)).toEqual([]);
    expect(await t.ctx.queues.queue('scheduleRuns').getJobCounts('waiting')).toEqual({
      waiting: 1,
    });
  });
});
