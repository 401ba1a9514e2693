import v8 from 'node:v8';
import { afterEach, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/schema.js';
import {
  createScriptPool,
  threadYoungGenerationMb,
} from '../../../src/workers/script-runs/pool.js';

const limits = configSchema.parse({}).scripts.limits;

/** What V8 has reserved for each script thread's young generation, from a diagnostic report. */
function threadNewSpaces(): number[] {
  const report = process.report.getReport() as unknown as {
    workers: Array<{ javascriptHeap: { heapSpaces: { new_space: { memorySize: number } } } }>;
  };
  return report.workers.map((w) => w.javascriptHeap.heapSpaces.new_space.memorySize);
}

afterEach(() => v8.setFlagsFromString('--max-semi-space-size=0'));

it.each([
  ['without a process-wide semi-space size', undefined],
  // What the server processes start with (`node-options.ts`): V8 reads the flag as it makes each
  // isolate, so setting it here is what the command line does to the threads made after it.
  ['under the --max-semi-space-size=8 the server processes start with', 8],
])("holds a script thread's young generation to its own size %s", async (_, semiMb) => {
  if (semiMb !== undefined) v8.setFlagsFromString(`--max-semi-space-size=${semiMb}`);
  // Every string stays alive until the run ends, so each scavenge during the run copies them
  // all: the survivors V8 grows a young generation for, to its cap. At 32 MB (the old
  // `memory_mb / 4`) that cap was two 8 MB semi-spaces; the process-wide flag, unless the pool
  // clears it, made it two 8 MB semi-spaces too.
  const source =
    'def main():\n    kept = ["item %d" % i for i in range(100000)]\n    return {"n": len(kept)}\n';
  const pool = createScriptPool({ threads: 1, computeSlots: 1, limits });
  try {
    for (let i = 0; i < 6; i++) {
      const run = await pool.run(
        {
          name: 'keep.star',
          hash: 'h-keep',
          source,
          args: {},
          deadline: Date.now() + 20_000,
          limits,
          declaredSecrets: [],
          secretValues: new Map(),
        },
        new AbortController().signal,
      );
      expect(run).toMatchObject({ success: true, result: { n: 100000 } });
    }
    const spaces = threadNewSpaces();
    expect(spaces.length).toBe(1);
    // Two semi-spaces of a third of the young generation each.
    const semiMb = threadYoungGenerationMb / 3;
    expect(spaces[0]).toBeLessThanOrEqual(2 * semiMb * 1024 * 1024);
  } finally {
    await pool.destroy();
  }
});
