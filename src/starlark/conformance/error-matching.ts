/** Locating a chunk's errors in the test file and matching them against its expected errors. */
import { StarlarkStaticErrors, StarlarkSyntaxError, type StackFrame } from '../index.js';
import type { Expectation } from './chunks.js';

export interface ErrorAt {
  line: number;
  message: string;
  /** Message plus traceback, for the lenient bazel matching. */
  full: string;
}

export function toRegExp(p: string, flags = ''): RegExp | null {
  try {
    return new RegExp(p, flags);
  } catch {
    return null;
  }
}

/** First frame of the test file, walking from the innermost frame outward. */
export function lineIn(file: string, stack: readonly StackFrame[]): number {
  for (let i = stack.length - 1; i >= 0; i--)
    if (stack[i]?.file === file) return stack[i]?.line ?? 0;
  return 0;
}

export function staticErrors(e: unknown): StarlarkSyntaxError[] | null {
  if (e instanceof StarlarkSyntaxError) return [e];
  if (e instanceof StarlarkStaticErrors) return e.errors;
  return null;
}

/** Go pass rule: each error uses up an expectation on its line whose regex matches. */
export function matchGo(errors: ErrorAt[], expects: Expectation[], problems: string[]): void {
  const left = [...expects];
  for (const err of errors) {
    const i = left.findIndex(
      (x) => x.line === err.line && toRegExp(x.pattern)?.test(err.message) === true,
    );
    if (i < 0) problems.push(`unexpected error at line ${err.line}: ${err.message}`);
    else left.splice(i, 1);
  }
  for (const x of left)
    problems.push(`line ${x.line}: expected error matching ${JSON.stringify(x.pattern)}`);
}
