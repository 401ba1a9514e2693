import { normInt, StarlarkError } from '../values/index.js';

const prefixBase: Record<string, number> = { b: 2, o: 8, x: 16 };

function invalid(s: string, base: number): StarlarkError {
  return new StarlarkError(`invalid literal with base ${base}: ${s}`);
}

/** Parses `int(s, base)`: optional sign, optional 0b/0o/0x prefix (base 0 requires it for non-decimal). */
export function parseIntLiteral(s: string, base: number): number | bigint {
  if (base !== 0 && (base < 2 || base > 36))
    throw new StarlarkError('int: base must be an integer >= 2 && <= 36');
  let i = 0;
  let neg = false;
  if (s[0] === '+' || s[0] === '-') {
    neg = s[0] === '-';
    i = 1;
  }
  let b = base;
  if (s[i] === '0' && i + 1 < s.length) {
    const p = prefixBase[s[i + 1]!.toLowerCase()];
    if (p !== undefined && (base === 0 || base === p)) {
      b = p;
      i += 2;
    } else if (base === 0) {
      // A leading zero is only valid in base 0 when the number is all zeros.
      if (/^0+$/.test(s.slice(i))) return 0;
      throw invalid(s, base);
    }
  }
  if (b === 0) b = 10;
  const digits = s.slice(i);
  if (digits.length === 0) throw invalid(s, base);
  let n = 0n;
  const bb = BigInt(b);
  let small = 0;
  const useSmall = digits.length <= 10;
  for (let k = 0; k < digits.length; k++) {
    const d = digitValue(digits.charCodeAt(k));
    if (d < 0 || d >= b) throw invalid(s, base);
    if (useSmall) small = small * b + d;
    else n = n * bb + BigInt(d);
  }
  if (useSmall) return neg ? (small === 0 ? 0 : -small) : small;
  return normInt(neg ? -n : n);
}

function digitValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 122) return c - 87;
  if (c >= 65 && c <= 90) return c - 55;
  return -1;
}

const floatRe = /^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)$/;
const specialRe = /^([+-]?)(inf|infinity|nan)$/i;

/** Parses `float(s)` with Go's syntax, rejecting values that overflow. */
export function parseFloatLiteral(s: string): number {
  const m = specialRe.exec(s);
  if (m !== null) {
    if (m[2]!.toLowerCase() === 'nan') return NaN;
    return m[1] === '-' ? -Infinity : Infinity;
  }
  if (!floatRe.test(s)) throw new StarlarkError(`invalid float literal: ${s}`);
  const f = Number(s);
  if (!Number.isFinite(f)) throw new StarlarkError('floating-point number too large');
  return f;
}
