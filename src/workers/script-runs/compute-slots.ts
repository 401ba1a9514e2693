// Types only: the script thread loads this module, and imports no package (zod included).
import type { UntimedOutcome } from '../../queue/script-runs.js';

/**
 * Compute slots shared by every thread of a script pool. A pool has more threads than CPUs so
 * that runs waiting on I/O (`http`, `time.sleep`) do not hold back runs that compute; a run
 * computes only while it holds a slot, and gives it back for each wait. The slots live in a
 * SharedArrayBuffer handed to each thread once, so the threads agree on them without a round
 * trip through the main thread.
 *
 * Each slot is one Int32 cell holding 0 (free) or the thread id of the thread computing in it,
 * written by the compareExchange that takes it: who holds a slot is recorded in the same atomic
 * step as the taking. A thread that dies holding one (its memory limit, terminated on abort, a
 * crash) never runs its `finally`; a plain count of free slots then lost that slot for good, and
 * after two memory bombs every run on a 2-CPU worker waited out its wall time. Here its pool
 * gives back exactly the slots of the dead thread once it has exited (`releaseOwner`), and a
 * compareExchange from its id to 0 makes that happen once, whoever gets there first.
 *
 * Layout: `count` slot cells, then one cell counting releases, which waiting threads sleep on.
 */

export function createComputeSlots(count: number): SharedArrayBuffer {
  return new SharedArrayBuffer((count + 1) * Int32Array.BYTES_PER_ELEMENT);
}

export interface ComputeGate {
  /** Takes a slot, waiting (without spinning) at most until `deadline`; false if none came. */
  enter(deadline: number): boolean;
  /** Gives back the slot taken by `enter`, if this gate holds one. */
  leave(): void;
}

function cells(buffer: SharedArrayBuffer): { cells: Int32Array; count: number } {
  const all = new Int32Array(buffer);
  return { cells: all, count: all.length - 1 };
}

/** Bumps the release counter and wakes as many waiting threads as slots came free. */
function announce(all: Int32Array, count: number, freed: number): void {
  if (freed === 0) return;
  Atomics.add(all, count, freed);
  Atomics.notify(all, count, freed);
}

/**
 * The gate of one thread, whose slots carry `owner` (its thread id, never 0). Without slots (a
 * run outside a pool) every call passes. One thread runs one task at a time, so a gate holds at
 * most one slot; `enter` while holding it and `leave` without it do nothing.
 */
export function computeGate(buffer: SharedArrayBuffer | undefined, owner: number): ComputeGate {
  if (buffer === undefined) return { enter: () => true, leave: () => {} };
  if (!Number.isInteger(owner) || owner <= 0) throw new Error(`invalid slot owner ${owner}`);
  const { cells: all, count } = cells(buffer);
  let held = -1;
  return {
    enter(deadline) {
      if (held >= 0) return true;
      for (;;) {
        // Read before looking, so that a release after the look changes it and ends the wait.
        const releases = Atomics.load(all, count);
        for (let i = 0; i < count; i++) {
          if (Atomics.compareExchange(all, i, 0, owner) === 0) {
            held = i;
            return true;
          }
        }
        const left = deadline - Date.now();
        if (left <= 0) return false;
        Atomics.wait(all, count, releases, left);
      }
    },
    leave() {
      if (held < 0) return;
      const slot = held;
      held = -1;
      // Still ours unless the pool took it back (it does so only for a thread that has exited).
      if (Atomics.compareExchange(all, slot, owner, 0) === owner) announce(all, count, 1);
    },
  };
}

/**
 * Frees every slot `owner` holds (the pool calls it once the thread has exited); returns how
 * many. A slot the thread gave back itself, or that another thread took since, is left alone.
 */
export function releaseOwner(buffer: SharedArrayBuffer, owner: number): number {
  const { cells: all, count } = cells(buffer);
  let freed = 0;
  for (let i = 0; i < count; i++) {
    if (Atomics.compareExchange(all, i, owner, 0) === owner) freed++;
  }
  announce(all, count, freed);
  return freed;
}

/** Free slots now (metrics and tests). */
export function freeSlots(buffer: SharedArrayBuffer): number {
  const { cells: all, count } = cells(buffer);
  let free = 0;
  for (let i = 0; i < count; i++) if (Atomics.load(all, i) === 0) free++;
  return free;
}

/** The failure of a run that got no compute slot before its deadline (pool or thread side). */
export function waitedForCpu(wallTimeMs: number): UntimedOutcome {
  return {
    success: false,
    error: `script waited for a free CPU until its wall time limit of ${wallTimeMs} ms`,
    logs: [],
  };
}
