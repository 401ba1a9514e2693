import type { AuditLog } from '../runtime/audit-log.js';
import type { Context } from '../runtime/context.js';
import type { Schedules } from '../schedules/create-schedules.js';
import { startAuditRetention } from './audit-retention.js';
import { startScheduleWorkers } from './schedule-runs/start-schedule-workers.js';
import { startScriptRunWorker, type ScriptRunWorkerDeps } from './script-runs/worker.js';

export interface RunningWorkers {
  close(): Promise<void>;
}

export interface WorkersDeps {
  schedules: Schedules;
  scriptRuns: ScriptRunWorkerDeps;
  /** Pruned to `audit.retention` by every worker process. */
  audit: Pick<AuditLog, 'prune'>;
}

/** Starts every BullMQ processor this process runs; `close` drains them for shutdown. */
export async function startWorkers(ctx: Context, deps: WorkersDeps): Promise<RunningWorkers> {
  const scheduleWorkers = await startScheduleWorkers(ctx, deps.schedules);
  const scriptWorker = await startScriptRunWorker(ctx, deps.scriptRuns);
  const stopRetention = startAuditRetention(ctx, deps.audit);
  return {
    async close() {
      stopRetention();
      await Promise.allSettled([scheduleWorkers.close(), scriptWorker.close()]);
    },
  };
}
