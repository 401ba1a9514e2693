import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/schema.js';
import { createEgress } from '../../../src/net/egress.js';
import { createHostHandler } from '../../../src/workers/script-runs/host-calls.js';
import {
  createScriptPool,
  runTaskFile,
  threadModule,
  type PoolTask,
  type ScriptPool,
} from '../../../src/workers/script-runs/pool.js';
import { startServer, type LocalServer } from '../../net/local-server.js';
import { loose } from '../../support/run-result.js';

const limits = configSchema.parse({}).scripts.limits;

describe('runTaskFile', () => {
  it('run from sources, points at the compiled thread module under dist/, bundled by the build', () => {
    const file = runTaskFile();
    expect(file).toBe(path.resolve(__dirname, '../../../dist/workers/script-runs/thread-entry.js'));
    expect(existsSync(file)).toBe(true);
    expect(existsSync(path.join(path.dirname(file), 'run-task.bundle.cjs'))).toBe(true);
  });

  it('takes the bundle only when it is not older than run-task.js', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-thread-module-'));
    try {
      const plain = path.join(dir, 'run-task.js');
      const bundle = path.join(dir, 'run-task.bundle.cjs');
      writeFileSync(plain, '');
      expect(threadModule(dir)).toBe(plain);
      writeFileSync(bundle, '');
      utimesSync(bundle, new Date(2_000_000_000_000), new Date(2_000_000_000_000));
      expect(threadModule(dir)).toBe(path.join(dir, 'thread-entry.js'));
      // tsc run alone after the build: the bundle holds the code before it.
      utimesSync(bundle, new Date(1_000_000_000_000), new Date(1_000_000_000_000));
      expect(threadModule(dir)).toBe(plain);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('script pool', () => {
  let pool: ScriptPool;
  let server: LocalServer;
  beforeAll(async () => {
    pool = createScriptPool({ threads: 1, limits });
    server = await startServer((_req, res, body) => res.end(`echo:${body}`));
  });
  afterAll(async () => {
    await pool.destroy();
    await server.close();
  });

  /** One task whose host calls go through real egress to the local server. */
  function task(source: string, deadline = Date.now() + 5000, steps = limits.steps) {
    const egress = createEgress({
      allow: [`127.0.0.1:${server.port}`],
      timeoutMs: 5000,
      maxBodyBytes: 1 << 20,
      maxRedirects: 0,
    });
    const host = createHostHandler({ egress, deadline, bodyBudget: 1 << 20 });
    const t: PoolTask = {
      name: 't.star',
      hash: 'h',
      source,
      args: {},
      deadline,
      limits: { ...limits, steps },
      declaredSecrets: [],
      secretValues: new Map(),
    };
    return { t, host, close: () => {} };
  }

  it('has the threads and compute slots asked for; by default 4 threads per CPU (16 at least) and a slot per CPU', async () => {
    expect(pool.threads).toBe(1);
    const cpus = Math.max(1, os.availableParallelism());
    const byDefault = createScriptPool({ threads: 0, limits });
    expect(byDefault.threads).toBe(Math.max(16, 4 * cpus));
    expect(byDefault.computeSlots).toBe(cpus);
    await byDefault.destroy();
  });

  it('starts its first thread with its first run, keeps it after, and refuses runs once destroyed', async () => {
    const lazy = createScriptPool({ threads: 2, limits });
    expect(lazy.threadsStarted).toBe(0);
    const { t, host } = task('result = {"ok": True}\n');
    expect(loose(await lazy.run(t, new AbortController().signal, host)).result).toEqual({
      ok: true,
    });
    expect(lazy.threadsStarted).toBe(1);
    await lazy.destroy();
    await expect(lazy.run(t, new AbortController().signal, host)).rejects.toThrow(
      'the script pool is closed',
    );
    const unused = createScriptPool({ threads: 2, limits });
    await unused.destroy();
    expect(unused.threadsStarted).toBe(0);
  });

  it('lets a run compute while others sleep, even with one compute slot', async () => {
    const waiting = createScriptPool({ threads: 3, computeSlots: 1, limits });
    const finished: string[] = [];
    const go = (label: string, source: string) => {
      const { t, host, close } = task(source);
      return waiting
        .run(t, new AbortController().signal, host)
        .then((res) => {
          expect(res.success, JSON.stringify(res)).toBe(true);
          finished.push(label);
        })
        .finally(close);
    };
    try {
      const sleepers = [
        go('sleeper 1', 'def main():\n    time.sleep(1)\n    return {}\n'),
        go('sleeper 2', 'def main():\n    time.sleep(1)\n    return {}\n'),
      ];
      // Both sleepers hold a thread, and the one slot is free while they sleep.
      await new Promise((r) => setTimeout(r, 300));
      await go('quick', 'def main():\n    return {"n": len(range(1000))}\n');
      expect(finished).toEqual(['quick']);
      await Promise.all(sleepers);
    } finally {
      await waiting.destroy();
    }
  });

  it('starts a thread only when the runs on the others all wait: 8 computing runs at once, 1 slot', async () => {
    const busy = createScriptPool({ threads: 8, computeSlots: 1, limits });
    try {
      const runs = Array.from({ length: 8 }, () => {
        const { t, host } = task('def main():\n    return {"n": len([i for i in range(20000)])}\n');
        return busy.run(t, new AbortController().signal, host);
      });
      for (const res of await Promise.all(runs)) expect(loose(res).result).toEqual({ n: 20000 });
      expect(busy.threadsStarted).toBe(1);
      // A sleeping run gives its place up: the next run goes to a second thread meanwhile.
      const sleeper = task('def main():\n    time.sleep(2)\n    return {}\n');
      let slept = false;
      const sleeping = busy
        .run(sleeper.t, new AbortController().signal, sleeper.host)
        .finally(() => (slept = true));
      await new Promise((r) => setTimeout(r, 100));
      const quick = task('result = {"ok": True}\n');
      expect(
        loose(await busy.run(quick.t, new AbortController().signal, quick.host)).result,
      ).toEqual({
        ok: true,
      });
      expect(slept).toBe(false);
      expect(busy.threadsStarted).toBe(2);
      expect((await sleeping).success).toBe(true);
    } finally {
      await busy.destroy();
    }
  });

  it('runs a script on a thread whose HTTP calls the main thread answers', async () => {
    const { t, host, close } = task(
      `def main():\n    r = http.post("${server.url}/in", {"a": 1})\n    return {"status": r["status"], "body": r["body"]}\n`,
    );
    try {
      const res = await pool.run(t, new AbortController().signal, host);
      expect(res).toEqual({
        success: true,
        result: { status: 200, body: 'echo:{"a":1}' },
        logs: [],
      });
      expect(server.requests.at(-1)?.headers['content-type']).toBe('application/json');
    } finally {
      close();
    }
  });

  it('an aborted run rejects and the pool keeps serving', async () => {
    const spin = task(
      'def main():\n    for i in range(1000000000):\n        pass\n',
      Date.now() + 30_000,
      1e12,
    );
    const controller = new AbortController();
    const running = pool.run(spin.t, controller.signal, spin.host);
    setTimeout(() => controller.abort(), 50);
    await expect(running).rejects.toThrow();
    spin.close();
    const ok = task('result = {"ok": True}\n');
    expect(loose(await pool.run(ok.t, new AbortController().signal, ok.host)).result).toEqual({
      ok: true,
    });
    ok.close();
  });
});
