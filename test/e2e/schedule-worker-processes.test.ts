import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileMirror } from '../../src/scripts/file-mirror.js';
import { createScriptService } from '../../src/scripts/script-service.js';
import { keys } from '../../src/store/keys.js';
import { createScriptRepository } from '../../src/store/script-repository.js';
import { scheduleHarness, waitFor, type ScheduleHarness } from '../schedules/harness.js';
import { spawnWorker, type WorkerProcess } from '../schedules/processes.js';
import { deploymentSigner } from '../support/script-record.js';
import { memoryTrail } from '../support/trail.js';

describe('schedules across worker processes', () => {
  let h: ScheduleHarness | undefined;
  let workers: WorkerProcess[] = [];
  let dir = '';
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.kill()));
    workers = [];
    await h?.close();
    h = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = '';
  });

  async function startWorkers(n: number, config?: string) {
    dir = dir || mkdtempSync(path.join(os.tmpdir(), 'steward-sched-proc-'));
    // Other hosts of one deployment: they share its approval key (as STEWARD_APPROVAL_KEY would).
    const key = path.join(h!.t.dir, 'data', 'approval_key');
    if (existsSync(key)) {
      mkdirSync(path.join(dir, 'data'), { recursive: true });
      copyFileSync(key, path.join(dir, 'data', 'approval_key'));
    }
    const started = Array.from({ length: n }, () =>
      spawnWorker({ prefix: h!.t.prefix, dir, ...(config !== undefined ? { config } : {}) }),
    );
    workers.push(...started);
    const queue = h!.t.ctx.queues.queue('scheduleRuns');
    const want = workers.filter(
      (w) => w.child.exitCode === null && w.child.signalCode === null,
    ).length;
    await waitFor(
      async () => (await queue.getWorkersCount()) >= want,
      40_000,
      `${want} schedule workers (${started.map((w) => w.output()).join('\n')})`,
    );
    return started;
  }

  /** An approved script in the shared store, which the worker processes' runner will run. */
  async function approvedScript(name: string, source: string) {
    const scripts = createScriptService({
      store: createScriptRepository(h!.t.ctx.redis),
      mirror: createFileMirror(h!.t.ctx.config.paths.scripts),
      log: h!.t.ctx.log,
      signer: await deploymentSigner(h!.t.ctx),
      trail: memoryTrail(),
    });
    await scripts.create(name, source, 'admin');
    await scripts.approve(name, 'admin');
  }

  it('three workers run each firing of an every-second cron exactly once', async () => {
    h = await scheduleHarness();
    await approvedScript('tick.star', 'def main():\n    return {"tick": True}\n');
    await startWorkers(3);
    const s = await h.schedules.service.create({
      name: 'every-second',
      cron_expr: '*/1 * * * * *',
      type: 'script',
      script_name: 'tick.star',
    });
    await waitFor(async () => (await h!.schedules.store.runs(s.id)).length >= 6, 30_000, '6 runs');
    await h.schedules.service.setEnabled(s.id, false);
    await new Promise((r) => setTimeout(r, 1500));
    const runs = await h.schedules.store.runs(s.id);
    const perFire = new Map<string, number>();
    for (const r of runs)
      perFire.set(r.scheduled_at ?? 'null', (perFire.get(r.scheduled_at ?? 'null') ?? 0) + 1);
    expect([...perFire.values()].every((n) => n === 1)).toBe(true);
    expect(perFire.has('null')).toBe(false);
    expect(
      runs.every(
        (r) => r.status === 'success' && r.output === JSON.stringify({ tick: true }, null, 2),
      ),
    ).toBe(true);
    // Consecutive whole seconds: no firing was lost either.
    const fires = [...perFire.keys()].map((t) => Date.parse(t)).sort((a, b) => a - b);
    for (let i = 1; i < fires.length; i++)
      expect((fires[i] as number) - (fires[i - 1] as number)).toBe(1000);
    expect(await h.t.ctx.redis.zcard(keys.scheduleRunning())).toBe(0);
  }, 90_000);

  it('three workers fan a shared tick out: one run per schedule per firing', async () => {
    h = await scheduleHarness();
    // A script that does not exist: each run is refused at once, so the test is about firing
    // alone (60 script runs every 2 s would load the 2-core CI machine).
    // 8 run slots per process (the default) and 60 schedules in one group: the tick is announced.
    await startWorkers(3);
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      const s = await h.schedules.service.create({
        name: `shared-${i}`,
        cron_expr: '*/2 * * * * *',
        type: 'script',
        script_name: 'absent.star',
      });
      ids.push(s.id);
    }
    const runsOf = () => Promise.all(ids.map((id) => h!.schedules.store.runs(id)));
    await waitFor(
      async () => (await runsOf()).every((r) => r.length >= 3),
      60_000,
      '3 firings of every schedule',
    );
    for (const id of ids) await h.schedules.service.setEnabled(id, false);
    // Runs claimed before the disable finish; nothing is left running.
    await waitFor(
      async () => (await h!.t.ctx.redis.zcard(keys.scheduleRunning())) === 0,
      30_000,
      'runs in flight to finish',
    );
    for (const runs of await runsOf()) {
      const fires = runs.map((r) => Date.parse(r.scheduled_at ?? ''));
      expect(new Set(fires).size).toBe(fires.length);
      expect(runs.filter((r) => r.status !== 'error' || !/not found/.test(r.error))).toEqual([]);
      const sorted = [...fires].sort((a, b) => a - b);
      for (let i = 1; i < sorted.length; i++)
        expect((sorted[i] as number) - (sorted[i - 1] as number)).toBe(2000);
    }
  }, 120_000);

  it('a worker killed mid-run leaves the run error (lease expired), never running forever', async () => {
    h = await scheduleHarness({ 'schedules.lock_ttl': '1s' });
    await approvedScript('slow.star', 'def main():\n    time.sleep(5)\n    return "slept"\n');
    const config = 'schedules:\n  lock_ttl: 1s\n';
    const [victim] = await startWorkers(1, config);
    const s = await h.schedules.service.create({
      name: 'slow',
      cron_expr: '0 3 * * *',
      type: 'script',
      script_name: 'slow.star',
      enabled: false,
    });
    await h.schedules.service.trigger(s.id);
    await waitFor(
      async () => (await h!.schedules.store.get(s.id))?.last_run_status === 'running',
      15_000,
      'running',
    );
    await victim!.kill();
    await startWorkers(1, config);
    const done = await waitFor(
      async () => {
        const got = await h!.schedules.service.get(s.id);
        return got.last_run_status === 'error' ? got : null;
      },
      15_000,
      'interrupted run ends',
    );
    expect(done.last_run_error).toMatch(/stopped before the run finished/);
    expect(await h.t.ctx.redis.zcard(keys.scheduleRunning())).toBe(0);
    const runs = await h.schedules.store.runs(s.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]?.status).toBe('error');
  }, 90_000);
});
