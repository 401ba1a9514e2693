import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCore, scriptWorkerDeps, type Core } from '../../src/cli/compose.js';
import {
  startScriptRunWorker,
  type RunningScriptWorker,
} from '../../src/workers/script-runs/worker.js';
import { startServer, type LocalServer } from '../net/local-server.js';
import { createTestContext, type TestContext } from '../support/app.js';

/**
 * No run without a caller: a job whose caller gave up while no worker was running is dropped
 * when a worker comes, never executed (a script may have side effects), and counted.
 */
describe('script runs whose caller is gone', () => {
  let t: TestContext;
  let core: Core;
  let worker: RunningScriptWorker | undefined;
  let sink: LocalServer;

  beforeAll(async () => {
    sink = await startServer((_req, res) => res.end('ok'));
    t = await createTestContext(
      { 'scripts.limits.wall_time': 1000, 'egress.allow': [`127.0.0.1:${sink.port}`] },
      'orphans',
    );
    core = await buildCore(t.ctx);
    await core.scripts.create(
      'side-effect.star',
      `def main():\n    http.post("${sink.url}/charge", body="once")\n    return {"done": True}\n`,
      'admin',
    );
    await core.scripts.approve('side-effect.star', 'admin');
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await sink?.close();
  });

  it('drops the job unrun when a worker comes after the caller left, and counts it', async () => {
    // No worker: the caller waits its deadline (wall time 1 s + 5 s) and gives up.
    const answer = await core.scriptRunner.run({
      name: 'side-effect.star',
      args: {},
      origin: 'api',
    });
    expect(answer).toMatchObject({
      success: false,
      error: expect.stringMatching(/gave no result within 6000 ms/),
    });

    worker = await startScriptRunWorker(t.ctx, scriptWorkerDeps(core));
    await expect.poll(() => core.stats.expired(), { timeout: 10_000 }).toBe(1);
    expect(sink.requests).toEqual([]);

    // A caller that is still there gets its run.
    const live = await core.scriptRunner.run({ name: 'side-effect.star', args: {}, origin: 'api' });
    expect(live).toMatchObject({ success: true, result: { done: true } });
    expect(sink.requests).toHaveLength(1);
  }, 30_000);
});
