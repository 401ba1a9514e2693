/**
 * Compute slots shared by every thread of a script pool. A pool has more threads than CPUs so
 * that runs waiting on I/O (`http`, `time.sleep`) do not hold back runs that compute; a run
 * computes only while it holds a slot, and gives it back for each wait. The count lives in a
 * SharedArrayBuffer that each task carries (shared, not copied), so the threads agree on it
 * without a round trip through the main thread.
 */

export function createComputeSlots(count: number): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(4);
  Atomics.store(new Int32Array(buffer), 0, count);
  return buffer;
}

export interface ComputeGate {
  /** Takes a slot, waiting (without spinning) at most until `deadline`; false if none came. */
  enter(deadline: number): boolean;
  leave(): void;
}

/** Gate over a pool's slots; without slots (a run outside a pool) every call passes. */
export function computeGate(buffer: SharedArrayBuffer | undefined): ComputeGate {
  if (buffer === undefined) return { enter: () => true, leave: () => {} };
  const cell = new Int32Array(buffer);
  return {
    enter(deadline) {
      for (;;) {
        const free = Atomics.load(cell, 0);
        if (free > 0) {
          if (Atomics.compareExchange(cell, 0, free, free - 1) === free) return true;
          continue;
        }
        const left = deadline - Date.now();
        if (left <= 0) return false;
        // Wakes when a slot is given back (the value changes from `free`), or at the deadline.
        Atomics.wait(cell, 0, free, left);
      }
    },
    leave() {
      Atomics.add(cell, 0, 1);
      Atomics.notify(cell, 0, 1);
    },
  };
}

/** Free slots now (metrics and tests). */
export function freeSlots(buffer: SharedArrayBuffer): number {
  return Atomics.load(new Int32Array(buffer), 0);
}

/** The failure of a run that got no compute slot before its deadline (pool or thread side). */
export function waitedForCpu(wallTimeMs: number): { success: false; error: string; logs: [] } {
  return {
    success: false,
    error: `script waited for a free CPU until its wall time limit of ${wallTimeMs} ms`,
    logs: [],
  };
}
