/**
 * The lexer's position state and its scanners for number and string literals. These are the
 * only parts that read a token's text character by character and turn it into a value, with
 * their own error messages; they are kept apart from the layout work (indentation, newlines,
 * brackets) and operator dispatch in `lexer.ts`, which extends this class so that both share
 * one cursor without passing it around.
 */
import { StarlarkSyntaxError } from './errors.js';
import type { Token } from './tokens.js';
import { decodeStringBody } from './string-literal.js';

export function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

export abstract class LiteralScanner {
  protected i = 0;
  protected line = 1;
  protected lineStart = 0;

  constructor(
    readonly file: string,
    protected readonly src: string,
  ) {}

  error(line: number, col: number, msg: string): never {
    throw new StarlarkSyntaxError(this.file, line, col, msg);
  }

  protected tok(kind: string, start: number, text = '', value: Token['value'] = null): Token {
    return { kind, line: this.line, col: start - this.lineStart + 1, text, value };
  }

  protected number(): Token {
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

  protected string(start: number, raw: boolean, bytes: boolean): Token {
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
