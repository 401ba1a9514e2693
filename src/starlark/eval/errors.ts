import { StarlarkError } from '../values/index.js';
import type { StackFrame } from './thread.js';

/** A runtime error as the host sees it: bare message, call stack and a formatted traceback. */
export class StarlarkExecError extends Error {
  /** Innermost frame last. */
  readonly callStack: StackFrame[];
  /** The message without position or traceback (what `assert.fails` patterns match). */
  readonly bare: string;

  constructor(readonly error: StarlarkError) {
    const stack = frames(error);
    const top = stack[stack.length - 1];
    super(
      top === undefined ? error.message : `${top.file}:${top.line}:${top.col}: ${error.message}`,
    );
    this.name = 'StarlarkExecError';
    this.callStack = stack;
    this.bare = error.message;
  }

  /** Python-style traceback, outermost call first. */
  get traceback(): string {
    return formatTraceback(this.callStack, this.bare, (this.error as { builtin?: string }).builtin);
  }
}

export function frames(e: StarlarkError): StackFrame[] {
  return Array.isArray(e.callStack) ? (e.callStack as StackFrame[]) : [];
}

export function formatTraceback(
  stack: readonly StackFrame[],
  message: string,
  builtin?: string,
): string {
  const lines = ['Traceback (most recent call last):'];
  for (const f of stack) lines.push(`  ${f.file}:${f.line}:${f.col}: in ${f.fn}`);
  lines.push(builtin === undefined ? `Error: ${message}` : `Error in ${builtin}: ${message}`);
  return lines.join('\n');
}

export function isStarlarkError(e: unknown): e is StarlarkError {
  return e instanceof StarlarkError;
}
