// The globals a script sees besides the builtins, from the list the worker and the syntax check
// use (a module without imports, so the UI can bundle it).
import { scriptGlobals } from '../../src/queue/script-globals.js';

/** Starlark's keywords (the language has no class, import, try, while or with). */
export const STARLARK_KEYWORDS = [
  'and',
  'break',
  'continue',
  'def',
  'elif',
  'else',
  'for',
  'if',
  'in',
  'lambda',
  'not',
  'or',
  'pass',
  'return',
] as const;

/**
 * The predeclared names of Steward's interpreter (src/starlark/lib/universe.ts; a test keeps the
 * two equal): the interpreter itself is not bundled into the page for a list of names.
 */
export const STARLARK_BUILTINS = [
  'False',
  'None',
  'True',
  'abs',
  'all',
  'any',
  'bool',
  'bytes',
  'chr',
  'dict',
  'dir',
  'enumerate',
  'fail',
  'float',
  'getattr',
  'hasattr',
  'hash',
  'int',
  'len',
  'list',
  'max',
  'min',
  'ord',
  'print',
  'range',
  'repr',
  'reversed',
  'set',
  'sorted',
  'str',
  'tuple',
  'type',
  'zip',
] as const;

export interface StarlarkName {
  label: string;
  type: 'keyword' | 'function' | 'constant' | 'namespace' | 'variable';
}

/** What the editor offers to complete: Starlark's names and Steward's, nothing of Python's. */
export const starlarkNames: StarlarkName[] = [
  ...STARLARK_KEYWORDS.map((label) => ({ label, type: 'keyword' as const })),
  ...STARLARK_BUILTINS.map((label) => ({
    label,
    type: /^[A-Z]/.test(label) ? ('constant' as const) : ('function' as const),
  })),
  ...scriptGlobals.map((label) => ({
    label,
    type: label === 'args' ? ('variable' as const) : ('namespace' as const),
  })),
];
