import { KEYWORDS, type Token } from './tokens.js';
import { isDigit, LiteralScanner } from './literal-scanner.js';

const TAB_WIDTH = 8;

// Longest first, so that a prefix never shadows a longer operator.
const OPERATORS = [
  '//=',
  '<<=',
  '>>=',
  '**',
  '//',
  '<<',
  '>>',
  '==',
  '!=',
  '<=',
  '>=',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '+',
  '-',
  '*',
  '/',
  '%',
  '&',
  '|',
  '^',
  '~',
  '<',
  '>',
  '=',
  '.',
  ',',
  ';',
  ':',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
];

/**
 * The operators by first character, longest first: a token tries only those that can match
 * rather than every operator (which, before V8 optimises the lexer, costs a cold run's parse).
 */
const OPERATORS_BY_CHAR = new Map<string, string[]>();
for (const op of OPERATORS) {
  const list = OPERATORS_BY_CHAR.get(op[0] as string);
  if (list === undefined) OPERATORS_BY_CHAR.set(op[0] as string, [op]);
  else list.push(op);
}

function isIdentStart(c: string): boolean {
  return (
    (c >= 'a' && c <= 'z') ||
    (c >= 'A' && c <= 'Z') ||
    c === '_' ||
    (c > '\x7f' && /\p{L}/u.test(c))
  );
}

function isIdentPart(c: string): boolean {
  return isIdentStart(c) || (c >= '0' && c <= '9') || (c > '\x7f' && /\p{N}/u.test(c));
}

/**
 * An on-demand scanner: the parser pulls tokens one at a time, so that the first error
 * reported is the one the parser meets first, as in starlark-go.
 */
export class Lexer extends LiteralScanner {
  private depth = 0;
  private atLineStart = true;
  private lineHasTokens = false;
  private readonly indents: number[] = [0];
  private readonly pending: Token[] = [];
  private finished = false;

  next(): Token {
    const queued = this.pending.shift();
    if (queued !== undefined) return queued;
    if (this.finished) return this.tok('EOF', this.i);
    return this.scan();
  }

  private newline(): void {
    this.line++;
    this.lineStart = this.i;
  }

  /** Measures indentation at the start of a logical line; returns false for blank lines. */
  private indentation(): boolean {
    const src = this.src;
    let col = 0;
    for (;;) {
      const c = src[this.i];
      if (c === ' ') col++;
      else if (c === '\t') col += TAB_WIDTH - (col % TAB_WIDTH);
      else if (c === '\r' || c === '\f') {
        /* insignificant */
      } else break;
      this.i++;
    }
    const c = src[this.i];
    if (c === undefined || c === '\n' || c === '#') return false;
    if (
      c === '\\' &&
      (src[this.i + 1] === '\n' || (src[this.i + 1] === '\r' && src[this.i + 2] === '\n'))
    )
      return false;
    this.atLineStart = false;
    const top = this.indents[this.indents.length - 1] ?? 0;
    if (col > top) {
      this.indents.push(col);
      this.pending.push(this.tok('INDENT', this.i));
    } else if (col < top) {
      while (col < (this.indents[this.indents.length - 1] ?? 0)) {
        this.indents.pop();
        this.pending.push(this.tok('OUTDENT', this.i));
      }
      if (col !== this.indents[this.indents.length - 1]) {
        this.error(
          this.line,
          this.i - this.lineStart + 1,
          'unindent does not match any outer indentation level',
        );
      }
    }
    return true;
  }

  private scan(): Token {
    const src = this.src;
    for (;;) {
      if (this.atLineStart && this.depth === 0) {
        if (this.indentation()) {
          const queued = this.pending.shift();
          if (queued !== undefined) return queued;
        }
      }
      const c = src[this.i];
      if (c === undefined) return this.eof();
      if (c === ' ' || c === '\t' || c === '\r' || c === '\f') {
        this.i++;
        continue;
      }
      if (c === '#') {
        while (this.i < src.length && src[this.i] !== '\n') this.i++;
        continue;
      }
      if (c === '\\') {
        const n = src[this.i + 1] === '\r' ? this.i + 2 : this.i + 1;
        if (src[n] === '\n') {
          this.i = n + 1;
          this.newline();
          continue;
        }
        this.error(this.line, this.i - this.lineStart + 1, "unexpected input character '\\'");
      }
      if (c === '\n') {
        const t = this.tok('NEWLINE', this.i);
        this.i++;
        this.newline();
        if (this.depth === 0) {
          this.atLineStart = true;
          if (this.lineHasTokens) {
            this.lineHasTokens = false;
            return t;
          }
        }
        continue;
      }
      this.lineHasTokens = true;
      return this.token(c);
    }
  }

  private eof(): Token {
    this.finished = true;
    if (this.lineHasTokens && this.depth === 0) {
      this.lineHasTokens = false;
      this.pending.push(this.tok('NEWLINE', this.i));
    }
    if (this.depth === 0) {
      while (this.indents.length > 1) {
        this.indents.pop();
        this.pending.push(this.tok('OUTDENT', this.i));
      }
    }
    this.pending.push(this.tok('EOF', this.i));
    return this.pending.shift() as Token;
  }

  private token(c: string): Token {
    const src = this.src;
    const start = this.i;
    if (isDigit(c) || (c === '.' && isDigit(src[start + 1]))) return this.number();
    if (c === '"' || c === "'") return this.string(start, false, false);
    if (isIdentStart(c)) {
      const c1 = src[start + 1];
      const c2 = src[start + 2];
      if ((c === 'r' || c === 'R') && (c1 === '"' || c1 === "'"))
        return this.string(start, true, false);
      if ((c === 'b' || c === 'B') && (c1 === '"' || c1 === "'"))
        return this.string(start, false, true);
      if (
        (c === 'r' || c === 'R' || c === 'b' || c === 'B') &&
        (c1 === 'r' || c1 === 'R' || c1 === 'b' || c1 === 'B') &&
        c1.toLowerCase() !== c.toLowerCase() &&
        (c2 === '"' || c2 === "'")
      ) {
        return this.string(start, true, true);
      }
      let j = start + 1;
      while (j < src.length && isIdentPart(src[j] as string)) j++;
      const name = src.slice(start, j);
      this.i = j;
      return KEYWORDS.has(name) ? this.tok(name, start) : this.tok('IDENT', start, name);
    }
    for (const op of OPERATORS_BY_CHAR.get(c) ?? []) {
      if (src.startsWith(op, start)) {
        if (op === '(' || op === '[' || op === '{') this.depth++;
        else if (op === ')' || op === ']' || op === '}') {
          if (this.depth === 0)
            this.error(this.line, start - this.lineStart + 1, `unexpected '${op}'`);
          this.depth--;
        }
        this.i = start + op.length;
        return this.tok(op, start);
      }
    }
    const cp = String.fromCodePoint(src.codePointAt(start) ?? 0);
    return this.error(
      this.line,
      start - this.lineStart + 1,
      `unexpected input character ${JSON.stringify(cp)}`,
    );
  }
}
