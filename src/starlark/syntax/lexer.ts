import { StarlarkSyntaxError } from './errors.js';
import { KEYWORDS, type Token } from './tokens.js';
import { decodeStringBody } from './string-literal.js';

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

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/**
 * An on-demand scanner: the parser pulls tokens one at a time, so that the first error
 * reported is the one the parser meets first, as in starlark-go.
 */
export class Lexer {
  private i = 0;
  private line = 1;
  private lineStart = 0;
  private depth = 0;
  private atLineStart = true;
  private lineHasTokens = false;
  private readonly indents: number[] = [0];
  private readonly pending: Token[] = [];
  private finished = false;

  constructor(
    readonly file: string,
    private readonly src: string,
  ) {}

  error(line: number, col: number, msg: string): never {
    throw new StarlarkSyntaxError(this.file, line, col, msg);
  }

  private tok(kind: string, start: number, text = '', value: Token['value'] = null): Token {
    return { kind, line: this.line, col: start - this.lineStart + 1, text, value };
  }

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
    for (const op of OPERATORS) {
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

  private number(): Token {
    const src = this.src;
    const start = this.i;
    const col = start - this.lineStart + 1;
    let j = start;
    const c1 = src[start + 1]?.toLowerCase();
    if (src[start] === '0' && (c1 === 'x' || c1 === 'o' || c1 === 'b')) {
      j += 2;
      const re = c1 === 'x' ? /[0-9a-fA-F]/ : c1 === 'o' ? /[0-7]/ : /[01]/;
      while (j < src.length && /[0-9a-zA-Z_]/.test(src[j] as string)) j++;
      const text = src.slice(start, j);
      const digits = text.slice(2);
      if (digits === '' || ![...digits].every((d) => re.test(d)))
        this.error(this.line, col, `invalid int literal: ${text}`);
      this.i = j;
      return this.tok('INT', start, text, toInt(BigInt(text)));
    }
    while (isDigit(src[j])) j++;
    let isFloat = false;
    if (src[j] === '.') {
      isFloat = true;
      j++;
      while (isDigit(src[j])) j++;
    }
    if (src[j] === 'e' || src[j] === 'E') {
      isFloat = true;
      j++;
      if (src[j] === '+' || src[j] === '-') j++;
      if (!isDigit(src[j]))
        this.error(this.line, col, `invalid float literal: ${src.slice(start, j)}`);
      while (isDigit(src[j])) j++;
    }
    const text = src.slice(start, j);
    this.i = j;
    if (isFloat) {
      const v = Number(text);
      if (!Number.isFinite(v))
        this.error(this.line, col, `floating-point literal out of range: ${text}`);
      return this.tok('FLOAT', start, text, v);
    }
    if (text.length > 1 && text[0] === '0') {
      if (/^0+$/.test(text)) return this.tok('INT', start, text, 0);
      this.error(this.line, col, `obsolete form of octal literal; use 0o${text.slice(1)}`);
    }
    return this.tok('INT', start, text, toInt(BigInt(text)));
  }

  private string(start: number, raw: boolean, bytes: boolean): Token {
    const src = this.src;
    const line = this.line;
    const col = start - this.lineStart + 1;
    let j = start;
    while (src[j] !== '"' && src[j] !== "'") j++;
    const quote = src[j] as string;
    const triple = src[j + 1] === quote && src[j + 2] === quote;
    const bodyStart = j + (triple ? 3 : 1);
    j = bodyStart;
    let bodyEnd = -1;
    for (;;) {
      const c = src[j];
      if (c === undefined) this.error(line, col, 'unexpected EOF in string');
      if (c === '\\') {
        if (src[j + 1] === '\n') this.newline2(j + 2);
        j += 2;
        continue;
      }
      if (c === '\n') {
        if (!triple) this.error(line, col, 'unexpected newline in string');
        this.newline2(j + 1);
      } else if (c === quote && (!triple || (src[j + 1] === quote && src[j + 2] === quote))) {
        bodyEnd = j;
        j += triple ? 3 : 1;
        break;
      }
      j++;
    }
    this.i = j;
    const body = src.slice(bodyStart, bodyEnd);
    const decoded = decodeStringBody(body, raw, bytes, (msg) => this.error(line, col, msg));
    const t: Token = { kind: bytes ? 'BYTES' : 'STRING', line, col, text: '', value: null };
    if (typeof decoded === 'string') t.text = decoded;
    else t.value = decoded;
    return t;
  }

  /** Records a line break inside a token without moving the scan position. */
  private newline2(nextLineStart: number): void {
    this.line++;
    this.lineStart = nextLineStart;
  }
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function toInt(b: bigint): number | bigint {
  return b >= MIN_SAFE && b <= MAX_SAFE ? Number(b) : b;
}
