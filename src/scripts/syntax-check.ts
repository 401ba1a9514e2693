import { InvalidScriptError } from '../errors/script-errors.js';
import { scriptGlobals } from '../queue/script-runs.js';
import { check } from '../starlark/index.js';
import { findMetadataError } from './metadata.js';

export interface SyntaxProblem {
  message: string;
  line: number;
  column: number;
}

/**
 * The first static error of `source` (syntax, or a name that resolves nowhere, or a construct
 * the script dialect forbids, or a malformed `# @secrets:` binding), or null: a script that
 * cannot run is refused when stored.
 */
export function findSyntaxError(name: string, source: string): SyntaxProblem | null {
  const first = check(name, source, { predeclared: scriptGlobals })[0];
  if (first) return { message: first.message, line: first.line, column: first.col };
  return findMetadataError(source);
}

/** Throws 400 `invalid_script` with `line` and `column` when the source does not parse. */
export function assertParses(name: string, source: string): void {
  const problem = findSyntaxError(name, source);
  if (problem) {
    throw new InvalidScriptError(problem.message, {
      line: problem.line,
      column: problem.column,
    });
  }
}
