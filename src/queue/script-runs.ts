import { z } from 'zod';
import type { runLimitsSchema } from '../config/schema.js';

/**
 * The `script-runs` contract, shared by its calling side (the script runner,
 * src/scripts/script-runner.ts: check, enqueue and wait) and its processor
 * (src/workers/script-runs): the payload schema and the one run outcome, the limits of a run,
 * the deadline both sides agree on and the names a script sees. The worker imports this module
 * and never the runner.
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

/**
 * A run as its caller asks for it (the API, the tool server, a schedule): the one request type,
 * carried unchanged from the caller through the job (`scriptRunPayload` adds what the runner
 * checked) to the script thread (`RunTask` takes its name, arguments and function).
 */
export const runRequest = z.object({
  /** Script name with `.star`. */
  name: z.string(),
  /** Arguments: a dict for the API test endpoint, a list for `script_run`. */
  args: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]),
  /** The function to call; by default `main()`, else the global `result`. */
  function: z.string().optional(),
  origin: z.enum(['api', 'mcp', 'schedule']),
  /** Allowlisted scripts may run without approval (tool server rule 1). */
  allowUnapproved: z.boolean().default(false),
});
export type RunRequest = z.input<typeof runRequest>;

export const scriptRunPayload = runRequest.extend({
  /** The approved hash the caller checked; the worker refuses to run anything else. */
  hash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
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

/** How long a run took, in whole milliseconds; every outcome carries it. */
const durationMs = z.number().int().nonnegative();
const logLines = z.array(z.string());

/**
 * A run that finished: the script's dict, or `{"value": …}` for anything else. JSON numbers
 * cannot carry integers beyond 2^53 exactly, so those travel as their exact decimal text.
 */
const runOk = z.object({
  success: z.literal(true),
  result: z.unknown(),
  duration_ms: durationMs,
  logs: logLines,
});
/** A run that failed, and why. */
const runFailed = z.object({
  success: z.literal(false),
  error: z.string(),
  duration_ms: durationMs,
  logs: logLines,
});

/**
 * The one run outcome, `ok | failed | refused`: a refusal is a failure that never started and
 * says why (`refusal`: the script is gone, or changed or lost its approval before the worker
 * picked it up). The worker makes it, BullMQ stores it (so the worker redacts it first), and
 * the runner hands it unchanged to the API, the tool server and schedules. A failure always
 * says why (`error`), and every outcome how long it took (`duration_ms`): `timedOutcome` and
 * `refusedOutcome` are the places an outcome is made.
 */
export const runOutcome = z.discriminatedUnion('success', [
  runOk,
  runFailed.extend({ refusal: runRefusal.optional() }),
]);
export type RunOutcome = z.infer<typeof runOutcome>;
export type RunRefused = RunOutcome & { success: false; refusal: RunRefusal };

export function isRefused(outcome: RunOutcome): outcome is RunRefused {
  return !outcome.success && outcome.refusal !== undefined;
}

/**
 * What leaves Steward (the API's answer): `ok | failed`, a refusal having become the catalogue's
 * error by then. A view of the same members, so it cannot drift from the outcome.
 */
export const runAnswer = z.discriminatedUnion('success', [runOk, runFailed]);

/**
 * What a script thread answers: the outcome before it is timed (the worker times it, with the
 * wait for a thread included). Only `timedOutcome` turns it into an outcome, so none can lack
 * its duration.
 */
export type UntimedOutcome = Untimed<z.infer<typeof runAnswer>>;
type Untimed<T> = T extends unknown ? Omit<T, 'duration_ms'> : never;

export function failedOutcome(error: string, logs: string[] = []): UntimedOutcome {
  return { success: false, error, logs };
}

/** The outcome of `answer`, which took `durationMs`. */
export function timedOutcome(answer: UntimedOutcome, durationMs: number): RunOutcome {
  const duration_ms = Math.max(0, Math.round(durationMs));
  return answer.success
    ? { success: true, result: answer.result, duration_ms, logs: answer.logs }
    : { success: false, error: answer.error, duration_ms, logs: answer.logs };
}

/** A run that never started, and why. */
export function refusedOutcome(refusal: RunRefusal, error: string): RunRefused {
  return { success: false, error, duration_ms: 0, logs: [], refusal };
}

/**
 * `outcome` with `clean` applied to what the script produced (its result, keys included, its
 * error and its logs), never to the outcome's own fields. Redaction rewrites every string it is
 * given, keys too: applied to the whole outcome, a secret whose value was "ration" turned
 * `duration_ms` into another key, and every later run answered 500 (the API fuzz of issue 47).
 */
export function redactRunResult<R extends RunOutcome>(outcome: R, clean: <T>(value: T) => T): R {
  const logs = clean(outcome.logs);
  return outcome.success
    ? { ...outcome, result: clean(outcome.result), logs }
    : { ...outcome, error: clean(outcome.error), logs };
}
