import type { Job } from 'bullmq';
import type { Logger } from '../../log/logger.js';
import type { Egress } from '../../net/egress.js';
import { queues, type ScriptRunResult } from '../../queue/definitions.js';
import { redactJson } from '../../scripts/deep-redact.js';
import { runDeadlineMargin } from '../../scripts/script-runner.js';
import type { ScriptRepository } from '../../store/script-repository.js';
import { openBridge } from './host-bridge.js';
import { createHostHandler } from './host-calls.js';
import type { ScriptPool } from './pool.js';

export interface ScriptRunLimits {
  steps: number;
  wallTimeMs: number;
  memoryMb: number;
  outputBytes: number;
  httpBodyBytes: number;
  httpRequests: number;
}

export interface ProcessorDeps {
  store: ScriptRepository;
  pool: ScriptPool;
  egress: Egress;
  limits: ScriptRunLimits;
  getSecret: (name: string) => Promise<string | null>;
  redact: (text: string) => string;
  log: Logger;
}

/** After the interpreter's own deadline, how long before the thread is terminated instead. */
const abortGrace = 250;

/**
 * The `script-runs` job processor: re-checks what the caller checked (the job may be old, the
 * script may have changed), runs the approved source in a pool thread under the limits, and
 * returns a redacted result — BullMQ stores results in Redis, where no secret may land.
 */
export function createScriptRunProcessor(deps: ProcessorDeps) {
  const { store, pool, limits, redact } = deps;

  const refuse = (code: string, error: string): ScriptRunResult => ({
    success: false,
    code,
    error,
    duration_ms: 0,
    logs: [],
  });

  return async function processScriptRun(job: Job): Promise<ScriptRunResult> {
    const payload = queues.scriptRuns.payload.parse(job.data);
    const { name } = payload;
    if (Date.now() - job.timestamp > limits.wallTimeMs + runDeadlineMargin) {
      // Its caller stopped waiting long ago; running it now would surprise everyone.
      return {
        success: false,
        error: 'script run expired before a worker picked it up',
        duration_ms: 0,
        logs: [],
      };
    }
    const record = await store.get(name);
    if (!record) return refuse('script_not_found', `script ${name} not found`);
    if (record.hash !== payload.hash) {
      return refuse('script_modified', `script ${name} changed since the run was requested`);
    }
    if (!payload.allowUnapproved) {
      if (record.status !== 'approved' || record.approved_hash !== payload.hash) {
        return refuse('script_not_approved', `script ${name} is not approved`);
      }
    }

    const started = Date.now();
    const deadline = started + limits.wallTimeMs;
    const declared = record.metadata.secrets;
    const secretValues: Record<string, string | null> = {};
    for (const secret of declared) secretValues[secret] = await deps.getSecret(secret);

    const bridge = openBridge(
      createHostHandler({ egress: deps.egress, deadline, bodyBudget: limits.httpBodyBytes }),
    );
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), limits.wallTimeMs + abortGrace);
    let outcome: { success: boolean; result?: unknown; error?: string; logs: string[] };
    try {
      outcome = await pool.run(
        {
          name,
          hash: record.hash,
          source: record.source,
          args: payload.args,
          ...(payload.function !== undefined ? { function: payload.function } : {}),
          deadline,
          limits: {
            steps: limits.steps,
            outputBytes: limits.outputBytes,
            httpRequests: limits.httpRequests,
          },
          declaredSecrets: declared,
          secretValues,
          bridge: bridge.end,
        },
        controller.signal,
      );
    } catch (err) {
      outcome = {
        success: false,
        error: describePoolError(err, controller.signal, limits),
        logs: [],
      };
      deps.log.warn({ script: name, error: outcome.error }, 'script thread failed');
    } finally {
      clearTimeout(timer);
      bridge.close();
    }
    const duration = Date.now() - started;
    return outcome.success
      ? {
          success: true,
          result: redactJson(outcome.result, redact),
          duration_ms: duration,
          logs: outcome.logs.map(redact),
        }
      : {
          success: false,
          error: redact(outcome.error ?? 'script failed'),
          duration_ms: duration,
          logs: outcome.logs.map(redact),
        };
  };
}

function describePoolError(err: unknown, signal: AbortSignal, limits: ScriptRunLimits): string {
  if (signal.aborted) return `script exceeded its wall time limit of ${limits.wallTimeMs} ms`;
  const code = (err as { code?: string }).code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return `script exceeded its memory limit of ${limits.memoryMb} MiB`;
  }
  return `script thread failed: ${err instanceof Error ? err.message : String(err)}`;
}
