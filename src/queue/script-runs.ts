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

/**
 * The one run result. BullMQ stores it in Redis as the job's result, so the worker redacts it
 * first. The API answer, the MCP `script_run` result and a schedule's outcome derive from it.
 */
export const scriptRunResult = z.object({
  success: z.boolean(),
  /**
   * On success: the script's dict, or `{"value": …}` for anything else. JSON numbers cannot
   * carry integers beyond 2^53 exactly, so those travel as their exact decimal text.
   */
  result: z.unknown().optional(),
  error: z.string().optional(),
  /** Set on refusals (the script changed, or lost its approval, after the caller's check). */
  refusal: runRefusal.optional(),
  duration_ms: z.number().int().nonnegative(),
  logs: z.array(z.string()),
});
export type ScriptRunResult = z.infer<typeof scriptRunResult>;

/** A run's result as its callers see it: refusals have become errors by then. */
export const runResult = scriptRunResult.omit({ refusal: true });
export type RunResult = z.infer<typeof runResult>;
