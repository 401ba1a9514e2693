import { AppError } from '../errors/catalogue.js';
import type { Logger } from '../log/logger.js';
import { QueueTimeoutError, type QueueClient } from '../queue/client.js';
import type { ScriptRunResult } from '../queue/definitions.js';
import type { StatsStore } from '../store/stats-store.js';
import { redactJson } from './deep-redact.js';
import type { FileMirror } from './file-mirror.js';
import { hashSource } from './hashing.js';
import type { ScriptRecord } from './script-schema.js';
import type { ScriptStore } from './script-store.js';

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
   * throw `AppError`: `script_not_found` 404, `script_not_approved` 403, `script_modified` 409.
   * Everything after the checks answers a result (failures included), redacted.
   */
  run(request: RunRequest): Promise<RunResult>;
  /** The hash a run of `name` would execute, or the refusal (same rules as `run`). */
  check(name: string, allowUnapproved?: boolean): Promise<{ record: ScriptRecord; hash: string }>;
}

export interface ScriptRunnerDeps {
  store: ScriptStore;
  mirror: FileMirror;
  queues: QueueClient;
  stats: StatsStore;
  wallTimeMs: number;
  redact: (text: string) => string;
  log: Logger;
}

/** Time a job may wait for a free thread and travel through Redis on top of the wall limit. */
export const runDeadlineMargin = 5_000;

export function createScriptRunner(deps: ScriptRunnerDeps): ScriptRunner {
  const { store, mirror, queues, stats, redact, log } = deps;
  const deadline = deps.wallTimeMs + runDeadlineMargin;

  async function check(name: string, allowUnapproved = false) {
    const record = await store.get(name);
    if (!record) throw new AppError('script_not_found', `script ${name} not found`);
    if (allowUnapproved) return { record, hash: record.hash };
    if (record.status === 'rejected') {
      throw new AppError('script_not_approved', `script ${name} was rejected`);
    }
    const approved = record.approved_hash;
    if (approved !== undefined) {
      // A file edited after approval is a change even before it is imported.
      const file = await mirror.read(name).catch(() => null);
      if (record.hash !== approved || (file !== null && hashSource(file) !== approved)) {
        throw new AppError(
          'script_modified',
          `script ${name} changed since it was approved; an administrator must approve it again`,
        );
      }
    }
    if (record.status !== 'approved' || approved === undefined) {
      throw new AppError(
        'script_not_approved',
        `script ${name} is pending approval; an administrator must approve it before it can run`,
      );
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
        throw new AppError(raw.code as 'script_modified', redact(raw.error ?? 'script refused'));
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
