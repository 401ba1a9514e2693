import { z } from 'zod';
import type { runLimitsSchema } from '../config/schema.js';

/**
 * The `script-runs` contract, shared by its producer (below: enqueue and wait) and its processor
 * (src/workers/script-runs): the payload and result schemas, the limits of a run, the deadline
 * both sides agree on and the names a script sees. The producer is `script-run-producer.ts`;
 * the worker imports this module and never the producer.
 */

/** What one run may use: `scripts.limits` as configured, the same object down to the thread. */
export type RunLimits = z.output<typeof runLimitsSchema>;

/** Time a job may wait for a free thread and travel through Redis on top of the wall limit. */
export const runDeadlineMargin = 5_000;

/** How long a caller waits for a run; a job older than this is not started (its caller left). */
export function runDeadline(limits: Pick<RunLimits, 'wall_time'>): number {
  return limits.wall_time + runDeadlineMargin;
}

export { scriptGlobals, type ScriptGlobal } from './script-globals.js';

export const scriptRunPayload = z.object({
  /** Script name with `.star`, or null for code that is not stored (never used unapproved). */
  name: z.string(),
  /** The approved hash the caller checked; the worker refuses to run anything else. */
  hash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  /** Arguments: a dict for the API test endpoint, a list for `script_run`. */
  args: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]),
  function: z.string().optional(),
  origin: z.enum(['api', 'mcp', 'schedule']),
  /** Allowlisted scripts may run without approval (tool server rule 1). */
  allowUnapproved: z.boolean().default(false),
  /**
   * When the caller stops waiting (epoch ms, the producer's clock). A worker does not start a
   * run after it, and ends a run by it: a script may have side effects, and nobody would be
   * there to hear of them.
   */
  callerDeadline: z.number().int().positive().optional(),
});
export type ScriptRunPayload = z.infer<typeof scriptRunPayload>;

/**
 * Why a run was refused before it started: the script is gone, or the approval rule refused it
 * (`ScriptRefusal`). The caller turns it into the catalogue's error, never by reading the text.
 */
export const runRefusal = z.enum(['not_found', 'pending', 'rejected', 'modified', 'unverified']);
export type RunRefusal = z.infer<typeof runRefusal>;

/** How long a run took, in whole milliseconds; every result carries it. */
const durationMs = z.number().int().nonnegative();
const logLines = z.array(z.string());

/**
 * On success: the script's dict, or `{"value": …}` for anything else. JSON numbers cannot carry
 * integers beyond 2^53 exactly, so those travel as their exact decimal text.
 */
const succeeded = z.object({
  success: z.literal(true),
  result: z.unknown(),
  duration_ms: durationMs,
  logs: logLines,
});
const failed = z.object({
  success: z.literal(false),
  error: z.string(),
  duration_ms: durationMs,
  logs: logLines,
});

/**
 * The one run result. BullMQ stores it in Redis as the job's result, so the worker redacts it
 * first. The API answer, the MCP `script_run` result and a schedule's outcome derive from it.
 * A failure always says why (`error`), and every result says how long it took (`duration_ms`):
 * `timedResult` is the one place a result is made.
 */
export const scriptRunResult = z.discriminatedUnion('success', [
  succeeded,
  /** `refusal` is set on refusals (the script changed, or lost its approval, after the check). */
  failed.extend({ refusal: runRefusal.optional() }),
]);
export type ScriptRunResult = z.infer<typeof scriptRunResult>;

/** A run's result as its callers see it: refusals have become errors by then. */
export const runResult = z.discriminatedUnion('success', [succeeded, failed]);
export type RunResult = z.infer<typeof runResult>;

/**
 * What a run produced, before it is timed: the script thread's answer, or a failure on the way
 * to it. Only `timedResult` turns it into a result, so no result can lack its duration.
 */
export type ScriptOutcome =
  | { success: true; result: unknown; logs: string[] }
  | { success: false; error: string; logs: string[] };

export function failedOutcome(error: string, logs: string[] = []): ScriptOutcome {
  return { success: false, error, logs };
}

/** The result of `outcome`, which took `durationMs`; a refusal says why the run never started. */
export function timedResult(
  outcome: ScriptOutcome,
  durationMs: number,
  refusal?: RunRefusal,
): ScriptRunResult {
  const duration_ms = Math.max(0, Math.round(durationMs));
  if (outcome.success) {
    return { success: true, result: outcome.result, duration_ms, logs: outcome.logs };
  }
  return {
    success: false,
    error: outcome.error,
    duration_ms,
    logs: outcome.logs,
    ...(refusal !== undefined ? { refusal } : {}),
  };
}

/** A result as its caller sees it: without the refusal, which the caller has turned into an error. */
export function callerResult(result: ScriptRunResult): RunResult {
  const { success, duration_ms, logs } = result;
  return success
    ? { success, result: result.result, duration_ms, logs }
    : { success, error: result.error, duration_ms, logs };
}

/**
 * `result` with `clean` applied to what the script produced (its result, keys included, its
 * error and its logs), never to the result's own fields. Redaction rewrites every string it is
 * given, keys too: applied to the whole result, a secret whose value was "ration" turned
 * `duration_ms` into another key, and every later run answered 500 (the API fuzz of issue 47).
 */
export function redactRunResult<R extends ScriptRunResult | RunResult>(
  result: R,
  clean: <T>(value: T) => T,
): R {
  const logs = clean(result.logs);
  return result.success
    ? { ...result, result: clean(result.result), logs }
    : { ...result, error: clean(result.error), logs };
}
