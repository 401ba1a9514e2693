import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/schema.js';
import {
  createScriptPool,
  type PoolTask,
  type ScriptPool,
} from '../../../src/workers/script-runs/pool.js';
import { failure } from '../../support/run-result.js';
import { waitUntil } from '../../support/wait.js';

/** A small heap, so that a memory bomb ends its thread quickly. */
const limits = { ...configSchema.parse({}).scripts.limits, memory_mb: 32 };

const bomb =
  'def main():\n    l = []\n    for i in range(1000):\n        l.append([i] * 1000000)\n    return len(l)\n';
const spin = 'def main():\n    for i in range(1000000000):\n        pass\n';
const quick = 'def main():\n    return {"n": len([i for i in range(1000)])}\n';

function task(source: string, deadlineMs = 10_000): PoolTask {
  return {
    name: 't.star',
    hash: `h-${source.length}`,
    source,
    args: {},
    deadline: Date.now() + deadlineMs,
    limits: { ...limits, steps: 1e12 },
    declaredSecrets: [],
    secretValues: new Map(),
  };
}

const never = () => new AbortController().signal;

/**
 * Two runs that compute until their time limit, side by side: each gets a slot of its own, so
 * both end by that limit and neither by having waited for a CPU (one slot lost and the second
 * would wait for the first the whole time).
 */
async function sideBySide(pool: ScriptPool): Promise<void> {
  const ends = await Promise.all([
    pool.run(task(spin, 1000), never()),
    pool.run(task(spin, 1000), never()),
  ]);
  for (const end of ends) {
    expect(end.success).toBe(false);
    expect(failure(end)).not.toMatch(/waited for a free CPU/);
  }
}

/**
 * Every way a run ends gives back what it held: its compute slot (taken in the thread) and its
 * place among the runs the pool admits (counted on the main thread). Before, a thread that died
 * kept its slot for good: two memory bombs on a 2-slot pool and every run after waited out its
 * wall time ("script waited for a free CPU").
 */
describe('script pool: nothing leaks when a run ends', () => {
  it('frees the slots of threads that died at their memory limit', async () => {
    const pool = createScriptPool({ threads: 4, computeSlots: 2, limits });
    try {
      for (let i = 0; i < 2; i++) {
        await expect(pool.run(task(bomb), never())).rejects.toMatchObject({
          code: 'ERR_WORKER_OUT_OF_MEMORY',
        });
      }
      // Two runs side by side, each within 3 s: neither waits for a slot that nobody holds.
      const runs = await Promise.all([
        pool.run(task(quick, 3000), never()),
        pool.run(task(quick, 3000), never()),
      ]);
      for (const res of runs) expect(res).toMatchObject({ success: true, result: { n: 1000 } });
      await sideBySide(pool);
      expect(pool.freeComputeSlots).toBe(2);
      expect(pool.admitted).toBe(0);
    } finally {
      await pool.destroy();
    }
  });

  it('frees the slots of threads terminated on abort while computing', async () => {
    const pool = createScriptPool({ threads: 4, computeSlots: 2, limits });
    try {
      const controllers = [new AbortController(), new AbortController()];
      const running = controllers.map((c) => pool.run(task(spin), c.signal));
      // Both compute (a spin never waits), each holding a slot in its thread.
      await waitUntil(() => pool.freeComputeSlots === 0, 10_000, 'both spins computing');
      for (const c of controllers) c.abort();
      for (const r of running) await expect(r).rejects.toThrow();
      await sideBySide(pool);
      expect(pool.freeComputeSlots).toBe(2);
      expect(pool.admitted).toBe(0);
    } finally {
      await pool.destroy();
    }
  });

  it('does not count a run again when its sleep ends after its thread was terminated', async () => {
    const pool = createScriptPool({ threads: 2, computeSlots: 1, limits });
    try {
      const controller = new AbortController();
      const sleeping = pool.run(task('def main():\n    time.sleep(1)\n'), controller.signal);
      // Admitted until its sleep begins: the sleep is a host call under way from then on.
      await waitUntil(() => pool.threadsStarted > 0 && pool.admitted === 0, 10_000, 'the sleep');
      controller.abort();
      await expect(sleeping).rejects.toThrow();
      // The main thread's sleep for the dead run ends now; it must not admit it again.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect(await pool.run(task(quick, 3000), never())).toMatchObject({ success: true });
      expect(pool.admitted).toBe(0);
      expect(pool.freeComputeSlots).toBe(1);
    } finally {
      await pool.destroy();
    }
  });

  it('gives everything back after a result, an error and a step or time limit', async () => {
    const pool = createScriptPool({ threads: 4, computeSlots: 2, limits });
    try {
      const ends = await Promise.all([
        pool.run(task(quick), never()),
        pool.run(task('def main():\n    fail("no")\n'), never()),
        pool.run({ ...task(spin), limits: { ...limits, steps: 10_000 } }, never()),
        pool.run(task(spin, 300), never()),
        pool.run(task('def main():\n    time.sleep(0.2)\n    return 1\n'), never()),
      ]);
      expect(ends.map((r) => r.success)).toEqual([true, false, false, false, true]);
      expect(pool.freeComputeSlots).toBe(2);
      expect(pool.admitted).toBe(0);
    } finally {
      await pool.destroy();
    }
  });
});
