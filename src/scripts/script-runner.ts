import { QueueTimeoutError, WorkerStoppedError } from '../errors/queue-errors.js';
import { ServiceUnavailableError } from '../errors/request-errors.js';
import { ScriptNotFoundError, ScriptRefusedError } from '../errors/script-errors.js';
import type { Logger } from '../log/logger.js';
import type { QueueClient } from '../queue/client.js';
import {
  failedOutcome,
  isRefused,
  refusedOutcome,
  runDeadline,
  timedOutcome,
  type RunLimits,
  type RunOutcome,
  type RunRefused,
  type RunRequest,
} from '../queue/script-runs.js';
import type { ScriptRepository } from '../store/script-repository.js';
import type { StatsRepository } from '../store/stats-repository.js';
import { checkApproval } from './approval.js';
import type { FileMirror } from './file-mirror.js';
import type { RecentChecks } from './recent-checks.js';
import type { ScriptRecord } from '../contracts/script-record.js';

/**
 * The one script runner, the calling side of the `script-runs` contract: checks, enqueues,
 * waits (wall limit + margin) and records the run. It answers the run's outcome unchanged
 * (`ok | failed | refused`), redacted by the worker; whoever sends it out of Steward redacts it
 * again with its own current secret set. A refusal is answered, not thrown: the API and the
 * tool server turn it into the catalogue's error (`refusalError`), a schedule records it as a
 * failed run with its reason. It rejects only when the process is stopping (503) or the store
 * fails the checks.
 */
export interface ScriptRunner {
  run(request: RunRequest, checked?: Promise<RunCheck>): Promise<RunOutcome>;
  /** The hash a run of `name` would execute, or the refusal (same rules as `run`). */
  check(name: string, allowUnapproved?: boolean): Promise<RunCheck>;
}

/**
 * What `check` found: the record and the hash to run, or the refusal. `run` takes one started
 * earlier for the same name and rule (the API starts it beside the request's rate-limit count):
 * the checks then cost no round trip of their own.
 */
export type RunCheck = { record: ScriptRecord; hash: string } | RunRefused;

export interface ScriptRunnerDeps {
  store: Pick<ScriptRepository, 'get' | 'recordRun'>;
  mirror: FileMirror;
  queues: Pick<QueueClient, 'run'>;
  stats: StatsRepository;
  limits: Pick<RunLimits, 'wall_time'>;
  log: Logger;
  /** Where passed checks are noted for this process's own worker. */
  recent?: Pick<RecentChecks, 'note'>;
}

/** The catalogue's error for a refused run: 404 `script_not_found`, 403 or 409 otherwise. */
export function refusalError(
  name: string,
  refused: RunRefused,
): ScriptNotFoundError | ScriptRefusedError {
  return refused.refusal === 'not_found'
    ? new ScriptNotFoundError(name, refused.error)
    : new ScriptRefusedError(name, refused.refusal, refused.error);
}

export function createScriptRunner(deps: ScriptRunnerDeps): ScriptRunner {
  const { store, mirror, queues, stats, log } = deps;
  const deadline = runDeadline(deps.limits);

  /** A fast pre-check with the worker's rule: refusals answer without a trip through the queue. */
  async function check(name: string, allowUnapproved = false): Promise<RunCheck> {
    // The file is stat'ed beside the record's round trip (as the worker does), not after it.
    const [record, fileHash] = await Promise.all([
      store.get(name),
      allowUnapproved ? null : mirror.hash(name).catch(() => null),
    ]);
    if (!record) return refusedOutcome('not_found', new ScriptNotFoundError(name).message);
    const verdict = checkApproval(record, { fileHash, allowUnapproved });
    if (!verdict.runnable) {
      return refusedOutcome(verdict.reason, new ScriptRefusedError(name, verdict.reason).message);
    }
    deps.recent?.note(name, { record, fileHash: allowUnapproved ? undefined : fileHash });
    return { record, hash: verdict.hash };
  }

  /**
   * Enqueues on `script-runs` and waits for the outcome. No answer by the deadline, or a job
   * that failed in its worker, is a failed outcome; only the process stopping rejects.
   */
  async function enqueue(request: RunRequest, hash: string): Promise<RunOutcome> {
    const started = performance.now();
    const failed = (error: string) =>
      timedOutcome(failedOutcome(error), performance.now() - started);
    try {
      return await queues.run(
        'scriptRuns',
        {
          ...request,
          allowUnapproved: request.allowUnapproved ?? false,
          hash,
          callerDeadline: Date.now() + deadline,
        },
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
  }

  return {
    check,
    async run(request, checked) {
      const found = await (checked ?? check(request.name, request.allowUnapproved));
      if ('refusal' in found) return found;
      const outcome = await enqueue(request, found.hash);
      // The worker refused (the script changed between our check and its pick-up): not a run.
      if (isRefused(outcome)) return outcome;
      const entry = {
        timestamp: new Date().toISOString(),
        success: outcome.success,
        duration_ms: outcome.duration_ms,
      };
      // Sent now, not awaited: the caller has its outcome a round trip sooner, and a read that
      // follows on this process's store connection still sees the run (one connection answers
      // in order). A failed write costs the history an entry, never the caller its outcome.
      void Promise.all([
        store.recordRun(request.name, entry),
        stats.record(outcome.success, outcome.duration_ms),
      ]).catch((err: unknown) => log.warn({ err, script: request.name }, 'could not record a run'));
      return outcome;
    },
  };
}
