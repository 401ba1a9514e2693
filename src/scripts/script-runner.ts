import { ScriptNotFoundError, ScriptRefusedError } from '../errors/script-errors.js';
import type { Logger } from '../log/logger.js';
import type { QueueClient } from '../queue/client.js';
import { createScriptRunProducer } from '../queue/script-run-producer.js';
import type { RunLimits, RunOutcome } from '../queue/script-runs.js';
import type { ScriptRepository } from '../store/script-repository.js';
import type { StatsRepository } from '../store/stats-repository.js';
import { checkApproval } from './approval.js';
import type { FileMirror } from './file-mirror.js';
import type { RecentChecks } from './recent-checks.js';
import type { ScriptRecord } from './script-schema.js';

export interface RunRequest {
  /** API form, with `.star`. */
  name: string;
  /** A dict for the API test endpoint, a list for `script_run`. */
  args: Record<string, unknown> | unknown[];
  function?: string;
  origin: 'api' | 'mcp' | 'schedule';
  /** Allowlisted names run their current source without approval (tool server rule 1). */
  allowUnapproved?: boolean;
}

export interface ScriptRunner {
  /**
   * Checks, enqueues on `script-runs`, waits (wall limit + margin) and records the run. Refusals
   * throw `ScriptNotFoundError` (404) or `ScriptRefusedError` (403 pending/rejected, 409 modified).
   * Everything after the checks answers a result (failures included), redacted by the worker;
   * whoever sends it out of Steward redacts it again with its own current secret set.
   */
  run(request: RunRequest, checked?: Promise<RunCheck>): Promise<RunOutcome>;
  /** The hash a run of `name` would execute, or the refusal (same rules as `run`). */
  check(name: string, allowUnapproved?: boolean): Promise<RunCheck>;
}

/**
 * What `check` found. `run` takes one started earlier for the same name and rule (the API starts
 * it beside the request's rate-limit count): the checks then cost no round trip of their own.
 */
export interface RunCheck {
  record: ScriptRecord;
  hash: string;
}

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

export function createScriptRunner(deps: ScriptRunnerDeps): ScriptRunner {
  const { store, mirror, stats, log } = deps;
  const producer = createScriptRunProducer({ queues: deps.queues, limits: deps.limits });

  /** A fast pre-check with the worker's rule: refusals answer without a trip through the queue. */
  async function check(name: string, allowUnapproved = false): Promise<RunCheck> {
    // The file is stat'ed beside the record's round trip (as the worker does), not after it.
    const [record, fileHash] = await Promise.all([
      store.get(name),
      allowUnapproved ? null : mirror.hash(name).catch(() => null),
    ]);
    if (!record) throw new ScriptNotFoundError(name);
    const verdict = checkApproval(record, { fileHash, allowUnapproved });
    if (!verdict.runnable) throw new ScriptRefusedError(name, verdict.reason);
    deps.recent?.note(name, { record, fileHash: allowUnapproved ? undefined : fileHash });
    return { record, hash: verdict.hash };
  }

  return {
    check,
    async run(request, checked) {
      const { hash } = await (checked ?? check(request.name, request.allowUnapproved));
      const timed = await producer.run({
        name: request.name,
        hash,
        args: request.args,
        ...(request.function !== undefined ? { function: request.function } : {}),
        origin: request.origin,
        allowUnapproved: request.allowUnapproved ?? false,
      });
      if (!timed.success && timed.refusal !== undefined) {
        // The worker refused (the script changed between our check and its pick-up).
        throw timed.refusal === 'not_found'
          ? new ScriptNotFoundError(request.name, timed.error)
          : new ScriptRefusedError(request.name, timed.refusal, timed.error);
      }
      const result = timed;
      const entry = {
        timestamp: new Date().toISOString(),
        success: result.success,
        duration_ms: result.duration_ms,
      };
      // Sent now, not awaited: the caller has its result a round trip sooner, and a read that
      // follows on this process's store connection still sees the run (one connection answers
      // in order). A failed write costs the history an entry, never the caller its result.
      void Promise.all([
        store.recordRun(request.name, entry),
        stats.record(result.success, result.duration_ms),
      ]).catch((err: unknown) => log.warn({ err, script: request.name }, 'could not record a run'));
      return result;
    },
  };
}
