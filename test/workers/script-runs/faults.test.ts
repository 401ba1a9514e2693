import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCore, scriptWorkerDeps, type Core } from '../../../src/cli/compose.js';
import {
  startScriptRunWorker,
  type RunningScriptWorker,
} from '../../../src/workers/script-runs/worker.js';
import { createTestContext, type TestContext } from '../../support/app.js';
import { loose } from '../../support/run-result.js';

/** One thread, a small heap and a short wall limit, so each fault shows quickly. */
let t: TestContext;
let services: Core;
let worker: RunningScriptWorker;
let hanging: Server;
let hangingUrl = '';

beforeAll(async () => {
  hanging = createServer(() => {
    // Never answers: a script waiting on it must still end at its deadline.
  });
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/`;
  t = await createTestContext(
    {
      'scripts.threads': 1,
      'scripts.limits.memory_mb': 32,
      'scripts.limits.wall_time': 1500,
      'scripts.limits.steps': 1_000_000_000,
      'egress.allow': ['127.0.0.1'],
    },
    'faults',
  );
  services = await buildCore(t.ctx);
  worker = await startScriptRunWorker(t.ctx, scriptWorkerDeps(services));
});

afterAll(async () => {
  await worker?.close();
  await t?.close();
  hanging?.closeAllConnections();
  await new Promise((resolve) => hanging?.close(resolve));
});

async function approved(name: string, source: string) {
  await services.scripts.create(name, source, 'admin');
  await services.scripts.approve(name, 'admin');
}

const run = async (name: string) =>
  loose(await services.scriptRunner.run({ name, args: {}, origin: 'api' }));

describe('script run faults', () => {
  it('fails a run over its memory limit, replaces the thread, and runs the next one', async () => {
    await approved(
      'hog.star',
      'def main():\n    l = []\n    for i in range(1000):\n        l.append([i] * 1000000)\n    return len(l)\n',
    );
    await approved('ok.star', 'result = {"ok": True}\n');
    const res = await run('hog.star');
    expect(res.success).toBe(false);
    expect(res.error).toMatch(/memory limit of 32 MiB/);
    expect(await run('ok.star')).toMatchObject({ success: true, result: { ok: true } });
    const history = await services.scripts.store.executionHistory('hog.star');
    expect(history[0]?.success).toBe(false);
  });

  it('fails a runaway loop at its wall time, and runs the next one', async () => {
    await approved(
      'spin.star',
      'def main():\n    x = 0\n    for i in range(1000000000):\n        x += i\n    return x\n',
    );
    const started = Date.now();
    const res = await run('spin.star');
    expect(res.success).toBe(false);
    expect(res.error).toMatch(/timed out|wall time/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await run('ok.star')).success).toBe(true);
  });

  it('ends a run blocked on an HTTP request that never answers at its deadline', async () => {
    await approved('hang.star', `def main():\n    return http.get("${hangingUrl}")\n`);
    const res = await run('hang.star');
    expect(res.success).toBe(false);
    expect(res.error).toMatch(/wall time|timed out/);
    expect((await run('ok.star')).success).toBe(true);
  });

  it('fails a run whose output is over the limit', async () => {
    await approved(
      'loud.star',
      'def main():\n    for i in range(100000):\n        print("x" * 100)\n',
    );
    const res = await run('loud.star');
    expect(res.success).toBe(false);
    expect(res.error).toMatch(/output/);
  });
});
