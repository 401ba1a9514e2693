import { Dict, List, normInt, None, SFloat, StarlarkError, type Value } from '../values/index.js';

/** JSON text → Starlark values, with starlark-go's error wording (`at offset N, ...`). */

class DecodeError extends Error {}

function fail(pos: number, msg: string): never {
  throw new DecodeError(`at offset ${pos}, ${msg}`);
}

/** A character quoted the way Go's %q quotes a rune. */
function charDesc(c: string): string {
  if (c === "'" || c === '\\') return `'\\${c}'`;
  return `'${c}'`;
}

const numberRe = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

class Parser {
  pos = 0;

  constructor(
    private readonly s: string,
    private readonly charge: (n: number) => void,
  ) {}

  private skipSpace(): void {
    const s = this.s;
    while (this.pos < s.length) {
      const c = s.charCodeAt(this.pos);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break;
      this.pos++;
    }
  }

  /** The next non-space character, or fails with "unexpected end of file". */
  private peek(): string {
    this.skipSpace();
    if (this.pos >= this.s.length) fail(this.pos, 'unexpected end of file');
    return this.s[this.pos]!;
  }

  parseDocument(): Value {
    const v = this.parseValue();
    this.skipSpace();
    if (this.pos < this.s.length)
      fail(this.pos, `unexpected character ${charDesc(this.s[this.pos]!)} after value`);
    return v;
  }

  parseValue(): Value {
    const c = this.peek();
    this.charge(1);
    switch (c) {
      case '{':
        return this.parseObject();
      case '[':
        return this.parseArray();
      case '"':
        return this.parseString();
      case 'n':
        return this.literal('null', None);
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      default:
        if (c === '-' || (c >= '0' && c <= '9')) return this.parseNumber();
        return fail(this.pos, `unexpected character ${charDesc(c)}`);
    }
  }

  private literal(word: string, v: Value): Value {
    if (this.s.startsWith(word, this.pos)) {
      this.pos += word.length;
      return v;
    }
    return fail(this.pos, `unexpected character ${charDesc(this.s[this.pos]!)}`);
  }

  private parseNumber(): Value {
    const start = this.pos;
    const s = this.s;
    while (this.pos < s.length && /[0-9.eE+-]/.test(s[this.pos]!)) this.pos++;
    const text = s.slice(start, this.pos);
    if (!numberRe.test(text)) fail(start, `invalid number: ${text}`);
    if (/[.eE]/.test(text)) {
      const f = Number(text);
      // Integral values written in exponent form without a fraction decode as ints, as in starlark-go.
      if (!text.includes('.') && Number.isInteger(f) && Number.isSafeInteger(f))
        return f === 0 ? 0 : f;
      return new SFloat(f);
    }
    const n = Number(text);
    if (Number.isSafeInteger(n)) return n === 0 ? 0 : n;
    return normInt(BigInt(text));
  }

  parseString(): string {
    const s = this.s;
    const start = this.pos;
    this.pos++;
    let out = '';
    let run = this.pos;
    for (;;) {
      if (this.pos >= s.length) fail(start, 'unclosed string literal');
      const c = s.charCodeAt(this.pos);
      if (c === 34) {
        out += s.slice(run, this.pos);
        this.pos++;
        return out;
      }
      if (c < 0x20) fail(this.pos, `invalid character ${charDesc(s[this.pos]!)} in string literal`);
      if (c !== 92) {
        this.pos++;
        continue;
      }
      out += s.slice(run, this.pos);
      const e = s[this.pos + 1];
      const simple: Record<string, string> = {
        '"': '"',
        '\\': '\\',
        '/': '/',
        b: '\b',
        f: '\f',
        n: '\n',
        r: '\r',
        t: '\t',
      };
      if (e !== undefined && simple[e] !== undefined) {
        out += simple[e];
        this.pos += 2;
      } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(s.slice(this.pos + 2, this.pos + 6))) {
        out += String.fromCharCode(parseInt(s.slice(this.pos + 2, this.pos + 6), 16));
        this.pos += 6;
      } else fail(this.pos, `invalid escape sequence \`\\${e ?? ''}\` in string`);
      run = this.pos;
    }
  }

  private parseArray(): Value {
    this.pos++;
    const items: Value[] = [];
    if (this.peek() === ']') {
      this.pos++;
      return new List(items);
    }
    for (;;) {
      items.push(this.parseValue());
      const c = this.peek();
      this.pos++;
      if (c === ']') return new List(items);
      if (c !== ',') fail(this.pos - 1, `got ${charDesc(c)}, want ',' or ']'`);
    }
  }

  private parseObject(): Value {
    this.pos++;
    const d = new Dict();
    if (this.peek() === '}') {
      this.pos++;
      return d;
    }
    for (;;) {
      const k = this.peek();
      if (k !== '"') fail(this.pos, `unexpected character ${charDesc(k)}`);
      const key = this.parseString();
      const colon = this.peek();
      if (colon !== ':') fail(this.pos, `after object key, got ${charDesc(colon)}, want ':'`);
      this.pos++;
      d.put(key, this.parseValue());
      const c = this.peek();
      this.pos++;
      if (c === '}') return d;
      if (c !== ',') fail(this.pos - 1, `in object, got ${charDesc(c)}, want ',' or '}'`);
    }
  }
}

/** Decodes JSON text; errors are StarlarkErrors prefixed with `fnName`. */
export function decodeJSON(fnName: string, text: string, charge: (n: number) => void): Value {
  try {
    return new Parser(text, charge).parseDocument();
  } catch (e) {
    if (e instanceof DecodeError) throw new StarlarkError(`${fnName}: ${e.message}`);
    throw e;
  }
}
