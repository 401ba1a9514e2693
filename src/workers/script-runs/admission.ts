/**
 * Which runs a script pool hands to its threads. Piscina starts a thread whenever a task finds
 * every thread busy, so 32 callers at once started the pool's 16 threads although only one run
 * per CPU computes: the others sat in the compute gate, each holding a thread and its heap
 * (about 20 MB; `bench:footprint` saw 476 MB after a load run). Here a run is dispatched only
 * while fewer than `slots` dispatched runs compute; a run waiting on I/O (a host call) does not
 * count, so a new thread starts exactly when the runs on the others all wait.
 */
export interface Admission {
  /** Waits for room, first come first served; false when `deadline` (epoch ms) passes first. */
  enter(deadline: number, signal: AbortSignal): Promise<boolean>;
  /** An admitted run ended or began to wait. */
  leave(): void;
  /** A waiting run computes again: it counts at once (it has its thread already). */
  resume(): void;
  /** Dispatched runs that compute now (tests and metrics). */
  readonly computing: number;
  readonly queued: number;
}

interface Waiter {
  admit(): void;
}

export function createAdmission(slots: number): Admission {
  let computing = 0;
  const waiters: Waiter[] = [];

  const pump = () => {
    while (computing < slots && waiters.length > 0) {
      computing++;
      waiters.shift()!.admit();
    }
  };

  return {
    enter(deadline, signal) {
      if (signal.aborted) return Promise.reject(signal.reason as Error);
      if (computing < slots && waiters.length === 0) {
        computing++;
        return Promise.resolve(true);
      }
      return new Promise<boolean>((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          const at = waiters.indexOf(waiter);
          if (at >= 0) waiters.splice(at, 1);
        };
        const waiter: Waiter = {
          admit: () => {
            done();
            resolve(true);
          },
        };
        const onAbort = () => {
          done();
          reject(signal.reason as Error);
        };
        const timer = setTimeout(
          () => {
            done();
            resolve(false);
          },
          Math.max(0, deadline - Date.now()),
        );
        signal.addEventListener('abort', onAbort, { once: true });
        waiters.push(waiter);
      });
    },
    leave() {
      computing--;
      pump();
    },
    resume() {
      computing++;
    },
    get computing() {
      return computing;
    },
    get queued() {
      return waiters.length;
    },
  };
}
