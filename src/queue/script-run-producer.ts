import { QueueTimeoutError, WorkerStoppedError } from '../errors/queue-errors.js';
import { ServiceUnavailableError } from '../errors/request-errors.js';
import type { QueueClient } from './client.js';
import {
  failedOutcome,
  runDeadline,
  timedOutcome,
  type RunLimits,
  type RunOutcome,
  type ScriptRunPayload,
} from './script-runs.js';

/** The calling side of the `script-runs` contract (`script-runs.ts`): enqueue and wait. */
export interface ScriptRunProducerDeps {
  queues: Pick<QueueClient, 'run'>;
  limits: Pick<RunLimits, 'wall_time'>;
}

export interface ScriptRunProducer {
  /** The wait for one run, in ms (wall limit plus margin). */
  readonly deadline: number;
  /**
   * Enqueues on `script-runs` and waits for the result. Never rejects for the run itself: no
   * answer by the deadline, or a job that failed in its worker, is a failed result.
   */
  run(payload: ScriptRunPayload): Promise<RunOutcome>;
}

export function createScriptRunProducer({
  queues,
  limits,
}: ScriptRunProducerDeps): ScriptRunProducer {
  const deadline = runDeadline(limits);
  return {
    deadline,
    async run(payload) {
      const started = performance.now();
      const failed = (error: string): RunOutcome =>
        timedOutcome(failedOutcome(error), performance.now() - started);
      try {
        return await queues.run(
          'scriptRuns',
          { ...payload, callerDeadline: Date.now() + deadline },
          deadline,
        );
      } catch (err) {
        if (err instanceof WorkerStoppedError) return failed(err.message);
        // Shutdown: the caller gets the 503 the process is about to stop with.
        if (err instanceof ServiceUnavailableError) throw err;
        if (err instanceof QueueTimeoutError) {
          return failed(
            `script run gave no result within ${deadline} ms (no worker, or the worker died)`,
          );
        }
        // The processor threw (its process failed mid-job, a stalled job was failed, …).
        return failed(`script run failed: ${(err as Error).message}`);
      }
    },
  };
}
