import { fnv32a } from './hash.js';
import { escapes } from './repr.js';
import { StarlarkObject, type Value } from './value.js';

const decoder = new TextDecoder('utf-8');
const encoder = new TextEncoder();

/** Immutable byte string. Never mutate `data` after construction. */
export class Bytes extends StarlarkObject {
  constructor(readonly data: Uint8Array) {
    super();
    this.frozen = true;
  }

  static fromString(s: string): Bytes {
    return new Bytes(encoder.encode(s));
  }

  override get typeName(): string {
    return 'bytes';
  }

  /** UTF-8 decoding with U+FFFD for invalid sequences (`str(b)`). */
  decode(): string {
    return decoder.decode(this.data);
  }

  override truth(): boolean {
    return this.data.length > 0;
  }

  override hash(): number {
    return fnv32a(this.data);
  }

  override hashKey(): unknown {
    return 'b' + latin1(this.data);
  }

  override equals(other: Value, _depth: number): boolean {
    return other instanceof Bytes && compareBytes(this.data, other.data) === 0;
  }

  override compareSameType(other: Value, _depth: number): number | undefined {
    return other instanceof Bytes ? compareBytes(this.data, other.data) : undefined;
  }

  override repr(): string {
    return 'b' + quoteBytes(this.data);
  }

  override str(): string {
    return this.decode();
  }

  override length(): number {
    return this.data.length;
  }

  override contains(x: Value): boolean | undefined {
    if (typeof x === 'number') return this.data.includes(x);
    if (x instanceof Bytes) return indexOfBytes(this.data, x.data, 0) >= 0;
    return undefined;
  }
}

export function latin1(data: Uint8Array): string {
  let s = '';
  for (let i = 0; i < data.length; i += 4096)
    s += String.fromCharCode(...data.subarray(i, i + 4096));
  return s;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

export function indexOfBytes(hay: Uint8Array, needle: Uint8Array, from: number): number {
  outer: for (let i = from; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** Length of the valid UTF-8 sequence starting at `i`, or 0 if invalid. */
function utf8SeqLen(d: Uint8Array, i: number): number {
  const b = d[i]!;
  let n: number;
  let min: number;
  if (b < 0x80) return 1;
  if (b >= 0xc2 && b <= 0xdf) [n, min] = [2, 0x80];
  else if (b >= 0xe0 && b <= 0xef) [n, min] = [3, 0x800];
  else if (b >= 0xf0 && b <= 0xf4) [n, min] = [4, 0x10000];
  else return 0;
  if (i + n > d.length) return 0;
  let cp = b & (0x7f >> n);
  for (let k = 1; k < n; k++) {
    const c = d[i + k]!;
    if ((c & 0xc0) !== 0x80) return 0;
    cp = (cp << 6) | (c & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

/** Quotes bytes: valid printable UTF-8 shown as text, everything else as escapes. */
function quoteBytes(d: Uint8Array): string {
  let out = '"';
  for (let i = 0; i < d.length;) {
    const b = d[i]!;
    const n = utf8SeqLen(d, i);
    if (n === 0) {
      out += '\\x' + b.toString(16).padStart(2, '0');
      i++;
    } else if (n === 1) {
      const e = escapes[b];
      if (e !== undefined) out += e;
      else if (b < 0x20 || b === 0x7f) out += '\\x' + b.toString(16).padStart(2, '0');
      else out += String.fromCharCode(b);
      i++;
    } else {
      const ch = decoder.decode(d.subarray(i, i + n));
      const cp = ch.codePointAt(0)!;
      out += isPrintable(cp)
        ? ch
        : cp > 0xffff
          ? '\\U' + cp.toString(16).padStart(8, '0')
          : '\\u' + cp.toString(16).padStart(4, '0');
      i += n;
    }
  }
  return out + '"';
}

/** Rough equivalent of Go's unicode.IsPrint for code points above ASCII. */
export function isPrintable(cp: number): boolean {
  if (cp < 0xa0) return false;
  if (
    cp === 0xad ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x2028 && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x206f)
  )
    return false;
  if (cp === 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb) || (cp >= 0xe000 && cp <= 0xf8ff))
    return false;
  return true;
}
