import type { AppError } from '../errors/catalogue.js';
import type { Logger } from '../log/logger.js';
import { QueueTimeoutError } from '../errors/queue-errors.js';
import { ScriptNotFoundError, ScriptRefusedError } from '../errors/script-errors.js';
import type { QueueClient } from '../queue/client.js';
import type { ScriptRunResult } from '../queue/definitions.js';
import type { StatsRepository } from '../store/stats-repository.js';
import { redactJson } from './deep-redact.js';
import type { FileMirror } from './file-mirror.js';
import { hashSource } from './hashing.js';
import type { ScriptRecord } from './script-schema.js';
import type { ScriptRepository } from '../store/script-repository.js';

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

export type RunResult = Omit<ScriptRunResult, 'code'>;

export interface ScriptRunner {
  /**
   * Checks, enqueues on `script-runs`, waits (wall limit + margin) and records the run. Refusals
   * throw `ScriptNotFoundError` (404) or `ScriptRefusedError` (403 pending/rejected, 409 modified).
   * Everything after the checks answers a result (failures included), redacted.
   */
  run(request: RunRequest): Promise<RunResult>;
  /** The hash a run of `name` would execute, or the refusal (same rules as `run`). */
  check(name: string, allowUnapproved?: boolean): Promise<{ record: ScriptRecord; hash: string }>;
}

export interface ScriptRunnerDeps {
  store: ScriptRepository;
  mirror: FileMirror;
  queues: QueueClient;
  stats: StatsRepository;
  wallTimeMs: number;
  redact: (text: string) => string;
  log: Logger;
}

/**
 * The worker's refusal as the error our own check throws. The worker sends the API code only,
 * so a script it finds not approved reads as pending.
 */
function workerRefusal(name: string, code: string, message: string): AppError {
  if (code === 'script_not_found') return new ScriptNotFoundError(name, message);
  return new ScriptRefusedError(name, code === 'script_modified' ? 'modified' : 'pending', message);
}

/** Time a job may wait for a free thread and travel through Redis on top of the wall limit. */
export const runDeadlineMargin = 5_000;

export function createScriptRunner(deps: ScriptRunnerDeps): ScriptRunner {
  const { store, mirror, queues, stats, redact, log } = deps;
  const deadline = deps.wallTimeMs + runDeadlineMargin;

  async function check(name: string, allowUnapproved = false) {
    const record = await store.get(name);
    if (!record) throw new ScriptNotFoundError(name);
    if (allowUnapproved) return { record, hash: record.hash };
    if (record.status === 'rejected') {
      throw new ScriptRefusedError(name, 'rejected');
    }
    const approved = record.approved_hash;
    if (approved !== undefined) {
      // A file edited after approval is a change even before it is imported.
      const file = await mirror.read(name).catch(() => null);
      if (record.hash !== approved || (file !== null && hashSource(file) !== approved)) {
        throw new ScriptRefusedError(name, 'modified');
      }
    }
    if (record.status !== 'approved' || approved === undefined) {
      throw new ScriptRefusedError(name, 'pending');
    }
    return { record, hash: approved };
  }

  async function execute(request: RunRequest, hash: string): Promise<ScriptRunResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      return await queues.run(
        'scriptRuns',
        {
          name: request.name,
          hash,
          args: request.args,
          ...(request.function !== undefined ? { function: request.function } : {}),
          origin: request.origin,
          allowUnapproved: request.allowUnapproved ?? false,
        },
        deadline,
      );
    } catch (err) {
      if (err instanceof QueueTimeoutError) {
        return {
          success: false,
          error: `script run gave no result within ${deadline} ms (no worker, or the worker died)`,
          duration_ms: elapsed(),
          logs: [],
        };
      }
      // The processor threw (its process failed mid-job, a stalled job was failed, …).
      return {
        success: false,
        error: `script run failed: ${(err as Error).message}`,
        duration_ms: elapsed(),
        logs: [],
      };
    }
  }

  return {
    check,
    async run(request) {
      const { hash } = await check(request.name, request.allowUnapproved);
      const raw = await execute(request, hash);
      if (raw.code !== undefined) {
        // The worker refused (the script changed between our check and its pick-up).
        throw workerRefusal(request.name, raw.code, redact(raw.error ?? 'script refused'));
      }
      const result: RunResult = {
        success: raw.success,
        ...(raw.success ? { result: redactJson(raw.result ?? {}, redact) } : {}),
        ...(!raw.success ? { error: redact(raw.error ?? 'script failed') } : {}),
        duration_ms: raw.duration_ms,
        logs: raw.logs.map(redact),
      };
      const entry = {
        timestamp: new Date().toISOString(),
        success: result.success,
        duration_ms: result.duration_ms,
      };
      await Promise.all([
        store.recordRun(request.name, entry),
        stats.record(result.success, result.duration_ms),
      ]).catch((err: unknown) => log.warn({ err, script: request.name }, 'could not record a run'));
      return result;
    },
  };
}
