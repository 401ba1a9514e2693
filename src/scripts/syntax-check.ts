import { AppError } from '../errors/catalogue.js';
import { StarlarkStaticErrors, StarlarkSyntaxError } from '../starlark/syntax/errors.js';
import { parseFile } from '../starlark/syntax/parser.js';

export interface SyntaxProblem {
  message: string;
  line: number;
  column: number;
}

/** The first syntax error of `source`, or null when it parses. */
export function findSyntaxError(name: string, source: string): SyntaxProblem | null {
  try {
    parseFile(name, source);
    return null;
  } catch (err) {
    const first =
      err instanceof StarlarkStaticErrors ? err.errors[0] : err instanceof StarlarkSyntaxError ? err : null;
    if (!first) throw err;
    return { message: first.message, line: first.line, column: first.col };
  }
}

/** Throws 400 `invalid_script` with `line` and `column` when the source does not parse. */
export function assertParses(name: string, source: string): void {
  const problem = findSyntaxError(name, source);
  if (problem) {
    throw new AppError('invalid_script', problem.message, {
      line: problem.line,
      column: problem.column,
    });
  }
}
