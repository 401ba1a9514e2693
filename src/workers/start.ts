import type { Context } from '../runtime/context.js';
import type { Services } from '../runtime/services.js';
import { startScheduleWorkers } from './schedule-runs/start-schedule-workers.js';
import { startScriptRunWorker } from './script-runs/worker.js';

export interface RunningWorkers {
  close(): Promise<void>;
}

/** Starts every BullMQ processor this process runs; `close` drains them for shutdown. */
export async function startWorkers(ctx: Context, services: Services): Promise<RunningWorkers> {
  const closers: Array<() => Promise<void>> = [];
  const scheduleWorkers = await startScheduleWorkers(ctx, services.schedules);
  closers.push(() => scheduleWorkers.close());
  const scriptWorker = await startScriptRunWorker(ctx, {
    store: services.scripts.store,
    getSecret: (name) => services.scriptSecrets.getSecret(name),
    redact: (text) => services.scriptSecrets.redact(text),
  });
  closers.push(() => scriptWorker.close());
  return {
    async close() {
      await Promise.allSettled(closers.map((c) => c()));
    },
  };
}
