import type { RunOutcome, UntimedOutcome } from '../../src/queue/script-runs.js';

type AnyResult = RunOutcome | UntimedOutcome;

/** The error of a failed run; throws (failing the test) when the run succeeded. */
export function failure(r: AnyResult): string {
  if (r.success) throw new Error(`expected a failed run, got ${JSON.stringify(r).slice(0, 200)}`);
  return r.error;
}

/** The result of a successful run; throws (failing the test) when the run failed. */
export function success(r: AnyResult): unknown {
  if (!r.success) throw new Error(`expected a successful run, got: ${r.error.slice(0, 200)}`);
  return r.result;
}

/** Any result with both branches' fields optional, for assertions that read either. */
export interface LooseResult {
  success: boolean;
  result?: unknown;
  error?: string;
  logs: string[];
}

export function loose(r: AnyResult): LooseResult {
  return r;
}
