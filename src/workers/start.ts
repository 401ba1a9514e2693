import type { Context } from '../runtime/context.js';
import type { Services } from '../runtime/services.js';

export interface RunningWorkers {
  close(): Promise<void>;
}

/** Starts every BullMQ processor this process runs; `close` drains them for shutdown. */
export async function startWorkers(_ctx: Context, _services: Services): Promise<RunningWorkers> {
  const closers: Array<() => Promise<void>> = [];
  return {
    async close() {
      await Promise.allSettled(closers.map((c) => c()));
    },
  };
}
