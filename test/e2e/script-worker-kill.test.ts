import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildCore, type Core } from '../../src/cli/compose.js';
import { createTestContext, type TestContext } from '../support/app.js';
import { testRedisUrl } from '../support/redis.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist/cli/main.js');

let t: TestContext;
let services: Core;
const children: ChildProcess[] = [];

/** `steward worker` as its own process on the test's deployment (same prefix, same dirs). */
function startWorkerProcess(): ChildProcess {
  const child = spawn(process.execPath, [cli, 'worker'], {
    cwd: t.dir,
    env: {
      PATH: process.env.PATH ?? '',
      REDIS_URL: testRedisUrl(),
      STEWARD_REDIS_PREFIX: t.prefix,
      STEWARD_WORKSPACE: t.ctx.config.paths.workspace,
      STEWARD_DATA_DIR: t.ctx.config.paths.data,
      STEWARD_CONFIG: path.join(t.dir, 'worker.yaml'),
      STEWARD_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}

// A long wall time puts the caller's deadline (wall time + 5 s) far beyond the ~4 s a dead
// worker's lock takes to lapse, so only the lock watch can answer in time.
const limits = { wall_time: 20_000, steps: 1_000_000_000 };

beforeAll(async () => {
  t = await createTestContext(
    { 'scripts.limits.wall_time': limits.wall_time, 'scripts.limits.steps': limits.steps },
    'kill',
  );
  writeFileSync(
    path.join(t.dir, 'worker.yaml'),
    `scripts:\n  threads: 1\n  limits:\n    wall_time: ${limits.wall_time}\n    steps: ${limits.steps}\n`,
  );
  services = await buildCore(t.ctx);
  for (const [name, source] of [
    ['ok.star', 'result = {"ok": True}\n'],
    [
      'spin.star',
      'def main():\n    x = 0\n    for i in range(1000000000):\n        x += i\n    return x\n',
    ],
  ] as const) {
    await services.scripts.create(name, source, 'admin');
    await services.scripts.approve(name, 'admin');
  }
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await t?.close();
});

const run = (name: string) => services.scriptRunner.run({ name, args: {}, origin: 'api' });

/** Resolves once `count` worker connections listen on the queue (a booting process is slow). */
async function workersListening(count: number): Promise<void> {
  const queue = t.ctx.queues.queue('scriptRuns');
  const deadline = Date.now() + 30_000;
  while ((await queue.getWorkers()).length < count) {
    if (Date.now() > deadline) throw new Error('the worker process never started listening');
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('answers a failure when the worker process dies mid-run, and the next worker runs', async () => {
  const first = startWorkerProcess();
  await workersListening(1);
  expect(await run('ok.star')).toMatchObject({ success: true, result: { ok: true } });

  const queue = t.ctx.queues.queue('scriptRuns');
  const pending = run('spin.star');
  const deadline = Date.now() + 10_000;
  // Its own job: the worker answers a run before BullMQ completes its job, so the job of the
  // run above may still be active for a moment.
  const spinning = async () =>
    (await queue.getActive()).some((job) => (job.data as { name?: string }).name === 'spin.star');
  while (!(await spinning())) {
    if (Date.now() > deadline) throw new Error('the run never became active');
    await new Promise((r) => setTimeout(r, 20));
  }
  first.kill('SIGKILL');
  const killedAt = Date.now();
  const result = await pending;
  // Told of the worker's death in words, long before the deadline (about 4 s after it here; a
  // loaded CI machine has taken 7), and the script never runs again.
  expect(Date.now() - killedAt).toBeLessThan(limits.wall_time);
  expect(result).toMatchObject({
    success: false,
    error: 'the worker running this script stopped',
  });
  const history = await services.scripts.store.executionHistory('spin.star');
  expect(history[0]?.success).toBe(false);

  startWorkerProcess();
  await workersListening(1);
  expect(await run('ok.star')).toMatchObject({ success: true, result: { ok: true } });
}, 90_000);
