import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { Piscina } from 'piscina';
import type { RunLimits, UntimedOutcome } from '../../queue/script-runs.js';
import { createAdmission } from './admission.js';
import { createComputeSlots, freeSlots, releaseOwner, waitedForCpu } from './compute-slots.js';
import { createHostRouter, type HostHandler } from './host-bridge.js';
import type { RunTask, ScriptThreadData } from './task-types.js';

/**
 * The compiled thread module. Worker threads need JavaScript: built, this file sits beside
 * `run-task.js`; run from TypeScript sources (vitest), the same relative file under `dist/`
 * is used, so tests need `npm run build` first. The build also bundles it into one file
 * (`run-task.bundle.cjs`, with V8's code cache), which a thread loads in about half the time; a
 * bundle older than `run-task.js` (tsc run alone since) would run stale code, so it is used only
 * when it is not.
 */
export function runTaskFile(): string {
  const here = fileURLToPath(import.meta.url);
  if (!here.endsWith('.ts')) return threadModule(path.dirname(here));
  const marker = `${path.sep}src${path.sep}`;
  const at = here.lastIndexOf(marker);
  if (at < 0) throw new Error(`cannot locate the compiled script-run task from ${here}`);
  const compiled = path.join(
    here.slice(0, at),
    'dist',
    path.dirname(here.slice(at + marker.length)),
  );
  if (!existsSync(path.join(compiled, 'run-task.js'))) {
    throw new Error(`${compiled}/run-task.js does not exist: run \`npm run build\` first`);
  }
  return threadModule(compiled);
}

/**
 * `thread-entry.js` in `dir` (which loads the bundle `run-task.bundle.cjs` with its code cache)
 * when the bundle is not older than `run-task.js` there, else `run-task.js`.
 */
export function threadModule(dir: string): string {
  const plain = path.join(dir, 'run-task.js');
  const mtime = (file: string) => statSync(file, { throwIfNoEntry: false })?.mtimeMs;
  const bundled = mtime(path.join(dir, 'run-task.bundle.cjs'));
  return bundled !== undefined && bundled >= (mtime(plain) ?? Infinity)
    ? path.join(dir, 'thread-entry.js')
    : plain;
}

/**
 * The young generation of each script thread (V8 gives a third to each of its two semi-spaces and
 * the rest to new large objects: 2 MB semi-spaces). A run's objects live for its milliseconds, so
 * a small one holds them as well as a large one: the realistic script of `bench:soak` cost the
 * same CPU per run (6.0–6.2 s for 8,000 runs) at 3, 6 and 32 MB. But V8 grows a thread's
 * semi-spaces with every byte that survives a scavenge and never gives them back while the thread
 * works, so at 32 MB (the old `memory_mb / 4`) each of the 16 threads a loaded worker keeps
 * reached 16 MB of young generation after 6,000 runs: at concurrency 16 with one `http.get` a
 * run, RSS crept up as the threads grew one by one.
 */
export const threadYoungGenerationMb = 6;

/**
 * The server processes start with `--max-semi-space-size` to hold the main thread's young
 * generation (`node-options.ts`), but V8 reads that flag whenever it makes an isolate
 * (`Heap::ConfigureHeap`) and lets it override the limit a worker thread is given, so every
 * script thread would grow to the main thread's size. The main isolate is made by then, so
 * clearing the flag keeps its limit and lets each thread made after this have its own.
 */
function leaveThreadsTheirYoungGeneration(): void {
  v8.setFlagsFromString('--max-semi-space-size=0');
}
/**
 * A thread idle this long ends (the warm one stays): the threads a burst of runs waiting on I/O
 * started (16 at concurrency 16) give their memory back 20 s after it, not a minute.
 */
export const threadIdleMs = 20_000;

export interface ScriptPoolOptions {
  /** 0 means four per CPU, at least 16. */
  threads: number;
  /** Runs computing at once; 0 means one per CPU. */
  computeSlots?: number;
  /** `memory_mb` caps each thread's heap. */
  limits: Pick<RunLimits, 'memory_mb'>;
}

/** A task as its caller gives it; the pool adds the host-call id. */
export type PoolTask = Omit<RunTask, 'bridge'>;

export interface ScriptPool {
  /** Runs a task; `host` answers its host calls (`http`) on this, the main thread. */
  run(task: PoolTask, signal: AbortSignal, host?: HostHandler): Promise<UntimedOutcome>;
  /** Runs at once: threads, most of them waiting on I/O when the CPUs are all busy. */
  readonly threads: number;
  readonly computeSlots: number;
  /** Threads running now (started on demand, ended after `threadIdleMs` idle). */
  readonly threadsStarted: number;
  /** Compute slots no thread holds, and runs the pool counts as computing (tests, metrics). */
  readonly freeComputeSlots: number;
  readonly admitted: number;
  destroy(): Promise<void>;
}

export function createScriptPool({ threads, computeSlots, limits }: ScriptPoolOptions): ScriptPool {
  const memoryMb = limits.memory_mb;
  const cpus = Math.max(1, os.availableParallelism());
  const slots = computeSlots && computeSlots > 0 ? computeSlots : cpus;
  const count = threads > 0 ? threads : Math.max(16, 4 * cpus);
  const compute = createComputeSlots(slots);
  const router = createHostRouter();
  const admission = createAdmission(slots);
  // Found now, so that a build without the thread module fails the worker's start, not a run.
  const filename = pathToFileURL(runTaskFile()).href;
  // Made by the first run, not at start: its thread holds about 13 MB (V8's isolate, node's
  // bootstrap and the interpreter's bundle), which an instance that has run nothing yet need
  // not carry (bench:footprint: 111 MB idle 10 s after ready, against 123). The first run waits
  // for that thread to start, about 65 ms more; every run after it finds one warm.
  let piscina: Piscina | null = null;
  let destroyed = false;
  const threadPool = (): Piscina => {
    if (destroyed) throw new Error('the script pool is closed');
    if (piscina !== null) return piscina;
    leaveThreadsTheirYoungGeneration();
    piscina = new Piscina({
      filename,
      // One warm thread, so that a run after a quiet spell does not wait for a thread to start;
      // the others start when runs compute side by side or wait on I/O (`admission.ts`) and end
      // once idle for `threadIdleMs`, so an idle worker keeps about 12 MB of script threads.
      minThreads: 1,
      maxThreads: count,
      idleTimeout: threadIdleMs,
      // Handed to each thread once, as it starts: the same buffer for every run, so no task's
      // message needs to carry it.
      workerData: { compute } satisfies ScriptThreadData,
      // Piscina's run-time and wait-time histograms: nobody reads them.
      recordTiming: false,
      resourceLimits: {
        maxOldGenerationSizeMb: memoryMb,
        maxYoungGenerationSizeMb: threadYoungGenerationMb,
      },
    });
    piscina.on('message', (message: unknown) => void router.receive(message));
    // A thread that dies (its memory limit, terminated on abort, a crash) never runs the
    // `finally` that gives back its compute slot: once it has exited, and so can take no other,
    // the slots it held are freed here (`compute-slots.ts`).
    const pool = piscina;
    pool.on('workerCreate', (created: { id: number }) => {
      const owner = created.id;
      const thread = pool.threads.find((t) => t.threadId === owner);
      thread?.once('exit', () => releaseOwner(compute, owner));
    });
    return piscina;
  };
  return {
    threads: count,
    computeSlots: slots,
    get threadsStarted() {
      return piscina?.threads.length ?? 0;
    },
    get freeComputeSlots() {
      return freeSlots(compute);
    },
    get admitted() {
      return admission.computing;
    },
    async run(task, signal, host) {
      if (!(await admission.enter(task.deadline, signal)))
        return waitedForCpu(task.limits.wall_time);
      // The run counts as computing while none of its host calls is under way, and not at all
      // once it has ended: a call still answering then (its thread timed out waiting, or died)
      // must not count it again, or the pool would keep one run too many admitted for good.
      let calls = 0;
      let ended = false;
      const handler = host ?? (async (op) => Promise.reject(new Error(`no ${op} here`)));
      const bridge = router.open(async (op, args) => {
        // A run waiting on its host call needs no CPU: another run may start meanwhile.
        if (calls++ === 0 && !ended) admission.leave();
        try {
          return op === 'sleep' ? await sleepFor(args) : await handler(op, args);
        } finally {
          if (--calls === 0 && !ended) admission.resume();
        }
      });
      try {
        const full: RunTask = { ...task, bridge: bridge.end };
        return (await threadPool().run(full, { signal })) as UntimedOutcome;
      } finally {
        bridge.close();
        if (calls === 0) admission.leave();
        ended = true;
      }
    },
    async destroy() {
      destroyed = true;
      await piscina?.destroy();
    },
  };
}

/** `time.sleep` waits here, on the main thread, so that the pool sees the run waiting. */
async function sleepFor(args: unknown): Promise<null> {
  const ms = (args as { ms?: unknown } | null)?.ms;
  await delay(typeof ms === 'number' && ms > 0 ? ms : 0);
  return null;
}
