/**
 * Token kinds. Punctuation and keywords are their own spelling; the rest are upper-case
 * names. Plain strings keep the parser readable and compare as cheaply as an enum in V8.
 */
export type TokenKind =
  | 'EOF'
  | 'NEWLINE'
  | 'INDENT'
  | 'OUTDENT'
  | 'IDENT'
  | 'INT'
  | 'FLOAT'
  | 'STRING'
  | 'BYTES'
  | string;

export interface Token {
  kind: TokenKind;
  line: number;
  col: number;
  /** Identifier name, or string text. */
  text: string;
  /** Literal value: int (number | bigint), float (number), bytes (Uint8Array). */
  value: number | bigint | Uint8Array | null;
}

export const KEYWORDS: ReadonlySet<string> = new Set([
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
  'load',
  'not',
  'or',
  'pass',
  'return',
  'while',
]);

const NAMED: Record<string, string> = {
  EOF: 'end of file',
  NEWLINE: 'newline',
  INDENT: 'indent',
  OUTDENT: 'outdent',
  IDENT: 'identifier',
  INT: 'int literal',
  FLOAT: 'float literal',
  STRING: 'string literal',
  BYTES: 'bytes literal',
};

/** How error messages name a token kind, following starlark-go (`'('`, `for`, `newline`). */
export function describeKind(kind: TokenKind): string {
  const named = NAMED[kind];
  if (named !== undefined) return named;
  if (KEYWORDS.has(kind)) return kind;
  return `'${kind}'`;
}
