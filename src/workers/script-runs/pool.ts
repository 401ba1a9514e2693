import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import type { RunLimits } from '../../queue/script-runs.js';
import { createComputeSlots } from './compute-slots.js';
import { createHostRouter, type HostHandler } from './host-bridge.js';
import type { RunTask, RunTaskResult } from './task-types.js';

/**
 * The compiled thread module. Worker threads need JavaScript: built, this file sits beside
 * `run-task.js`; run from TypeScript sources (vitest), the same relative file under `dist/`
 * is used, so tests need `npm run build` first.
 */
export function runTaskFile(): string {
  const here = fileURLToPath(import.meta.url);
  if (!here.endsWith('.ts')) return fileURLToPath(new URL('./run-task.js', import.meta.url));
  const marker = `${path.sep}src${path.sep}`;
  const at = here.lastIndexOf(marker);
  if (at < 0) throw new Error(`cannot locate the compiled script-run task from ${here}`);
  const compiled = path.join(
    here.slice(0, at),
    'dist',
    path.dirname(here.slice(at + marker.length)),
    'run-task.js',
  );
  if (!existsSync(compiled)) {
    throw new Error(`${compiled} does not exist: run \`npm run build\` first`);
  }
  return compiled;
}

export interface ScriptPoolOptions {
  /** 0 means four per CPU, at least 16. */
  threads: number;
  /** Runs computing at once; 0 means one per CPU. */
  computeSlots?: number;
  /** `memory_mb` caps each thread's heap. */
  limits: Pick<RunLimits, 'memory_mb'>;
}

/** A task as its caller gives it; the pool adds the host-call id and the compute slots. */
export type PoolTask = Omit<RunTask, 'bridge' | 'compute'>;

export interface ScriptPool {
  /** Runs a task; `host` answers its host calls (`http`) on this, the main thread. */
  run(task: PoolTask, signal: AbortSignal, host?: HostHandler): Promise<RunTaskResult>;
  /** Runs at once: threads, most of them waiting on I/O when the CPUs are all busy. */
  readonly threads: number;
  readonly computeSlots: number;
  destroy(): Promise<void>;
}

export function createScriptPool({ threads, computeSlots, limits }: ScriptPoolOptions): ScriptPool {
  const memoryMb = limits.memory_mb;
  const cpus = Math.max(1, os.availableParallelism());
  const slots = computeSlots && computeSlots > 0 ? computeSlots : cpus;
  const count = threads > 0 ? threads : Math.max(16, 4 * cpus);
  const compute = createComputeSlots(slots);
  const router = createHostRouter();
  const piscina = new Piscina({
    filename: pathToFileURL(runTaskFile()).href,
    // One warm thread per slot; the others start when runs wait on I/O and end after a minute
    // idle, so an idle worker keeps only what computing needs in memory.
    minThreads: Math.min(slots, count),
    maxThreads: count,
    idleTimeout: 60_000,
    resourceLimits: {
      maxOldGenerationSizeMb: memoryMb,
      maxYoungGenerationSizeMb: Math.max(4, Math.min(32, Math.floor(memoryMb / 4))),
    },
  });
  piscina.on('message', (message: unknown) => void router.receive(message));
  return {
    threads: count,
    computeSlots: slots,
    async run(task, signal, host) {
      const bridge = router.open(
        host ?? (async (op) => Promise.reject(new Error(`no ${op} here`))),
      );
      try {
        const full: RunTask = { ...task, bridge: bridge.end, compute };
        return (await piscina.run(full, { signal })) as RunTaskResult;
      } finally {
        bridge.close();
      }
    },
    async destroy() {
      await piscina.destroy();
    },
  };
}
