import { normInt, SFloat, StarlarkError, type Value } from './value.js';

/**
 * Numeric operators. Ints stay JS numbers while results are safe integers and overflow to
 * bigint otherwise; `-0` never escapes as an int (hence the `+ 0` normalisations).
 */

/** 0n to 511n, made once: shift counts and the small ints hashes mix in (`h ^ ord(c)`). */
const smallBigs: bigint[] = Array.from({ length: 512 }, (_, i) => BigInt(i));

/**
 * An int as a bigint, without allocating for 0–511. Each operation on a big int that converted
 * its small operand made a new bigint for it, about a quarter of a 64-bit PRNG step's
 * allocations. Every conversion of an int operand goes through here, the generated code's too.
 */
export function toBig(x: number | bigint): bigint {
  if (typeof x === 'bigint') return x;
  return x >= 0 && x < 512 ? smallBigs[x]! : BigInt(x);
}

/** Converts an int to a float value, failing for ints beyond the float range. */
export function intToFloat(x: number | bigint): number {
  if (typeof x === 'number') return x;
  const f = Number(x);
  if (!Number.isFinite(f)) throw new StarlarkError('int too large to convert to float');
  return f;
}

/** Float value of an int or float operand, or undefined for non-numbers. */
export function asFloat(x: Value): number | undefined {
  if (typeof x === 'number') return x;
  if (x instanceof SFloat) return x.v;
  if (typeof x === 'bigint') return intToFloat(x);
  return undefined;
}

export function intAdd(a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    if (Number.isSafeInteger(r)) return r;
  }
  return normInt(toBig(a) + toBig(b));
}

export function intSub(a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b;
    if (Number.isSafeInteger(r)) return r;
  }
  return normInt(toBig(a) - toBig(b));
}

export function intMul(a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === 'number' && typeof b === 'number') {
    // Rounding is monotonic, so a safe-looking product is the exact product, and an unsafe
    // one means an unsafe (so canonical bigint) exact product.
    const r = a * b;
    if (Number.isSafeInteger(r)) return r + 0;
    return BigInt(a) * BigInt(b);
  }
  // A bigint is at least 2^53 in magnitude, so only a zero factor brings the product back.
  if (a === 0 || b === 0) return 0;
  return toBig(a) * toBig(b);
}

export function intFloorDiv(a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === 'number' && typeof b === 'number') {
    if (b === 0) throw new StarlarkError('integer division by zero');
    const r = a % b;
    let q = (a - r) / b;
    if (r !== 0 && r < 0 !== b < 0) q -= 1;
    if (Number.isSafeInteger(q)) return q + 0;
  }
  const x = toBig(a);
  const y = toBig(b);
  if (y === 0n) throw new StarlarkError('integer division by zero');
  let q = x / y;
  if (x % y !== 0n && x < 0n !== y < 0n) q -= 1n;
  return normInt(q);
}

export function intMod(a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === 'number' && typeof b === 'number') {
    if (b === 0) throw new StarlarkError('integer modulo by zero');
    let r = a % b;
    if (r !== 0 && r < 0 !== b < 0) r += b;
    return r + 0;
  }
  const x = toBig(a);
  const y = toBig(b);
  if (y === 0n) throw new StarlarkError('integer modulo by zero');
  // Modulo a power of two (hashes and PRNGs wrapping at 2^64) is a truncation, which V8 does
  // an order of magnitude faster than a bigint division; it is floored for negative x too.
  if (y > 0n) {
    const bits = pow2Bits(y);
    if (bits >= 0) return normInt(BigInt.asUintN(bits, x));
  }
  let r = x % y;
  if (r !== 0n && r < 0n !== y < 0n) r += y;
  return normInt(r);
}

let lastPow2 = 1n;
let lastPow2Bits = 0;
let lastOther = 3n;

/** k when y (positive) is 2^k, else -1; remembers the last answers, since a loop reuses one modulus. */
export function pow2Bits(y: bigint): number {
  if (y === lastPow2) return lastPow2Bits;
  if (y === lastOther) return -1;
  if ((y & (y - 1n)) !== 0n) {
    lastOther = y;
    return -1;
  }
  lastPow2 = y;
  lastPow2Bits = y.toString(2).length - 1;
  return lastPow2Bits;
}

function bitwise(a: number | bigint, b: number | bigint, op: string): number | bigint {
  // 32-bit JS operators are only exact for small operands.
  if (typeof a === 'number' && typeof b === 'number' && (a | 0) === a && (b | 0) === b) {
    return op === '&' ? a & b : op === '|' ? a | b : a ^ b;
  }
  const x = toBig(a);
  const y = toBig(b);
  return normInt(op === '&' ? x & y : op === '|' ? x | y : x ^ y);
}

let lastMask = (1n << 64n) - 1n;
let lastMaskBits = 64;
let lastNonMask = 0n;

/** n when y is 2^n - 1 (n ≥ 1), else -1; remembers the last answers, as `pow2Bits` does. */
function maskBits(y: bigint): number {
  if (y === lastMask) return lastMaskBits;
  if (y === lastNonMask) return -1;
  if (y <= 0n || (y & (y + 1n)) !== 0n) {
    lastNonMask = y;
    return -1;
  }
  lastMask = y;
  lastMaskBits = y.toString(2).length;
  return lastMaskBits;
}

/**
 * `a & b`. With an all-ones mask (`x & 0xFFFFFFFFFFFFFFFF`, how 64-bit hashes and PRNGs wrap)
 * it truncates instead: `BigInt.asUintN` is the same value (two's complement, any sign) and took
 * half the time of `&` on a 77-bit operand.
 */
export function intAnd(a: number | bigint, b: number | bigint): number | bigint {
  if (typeof b === 'bigint') {
    const n = maskBits(b);
    if (n >= 0) return normInt(BigInt.asUintN(n, toBig(a)));
  } else if (typeof a === 'bigint') {
    // A mask below 2^53 is a number: `h & 0xFFFFFFFF`.
    const n = b > 0 ? Math.round(Math.log2(b + 1)) : -1;
    if (n > 0 && 2 ** n === b + 1) return Number(BigInt.asUintN(n, a));
  }
  return bitwise(a, b, '&');
}

export const intOr = (a: number | bigint, b: number | bigint): number | bigint =>
  bitwise(a, b, '|');
export const intXor = (a: number | bigint, b: number | bigint): number | bigint =>
  bitwise(a, b, '^');

export function intShift(a: number | bigint, b: number | bigint, left: boolean): number | bigint {
  if (b < 0) throw new StarlarkError('negative shift count');
  if (b >= 512) throw new StarlarkError('shift count too large');
  if (typeof a === 'number') {
    const p = 2 ** Number(b);
    // Dividing by a power of two is exact, so flooring it is the arithmetic right shift.
    if (!left) return Math.floor(a / p) + 0;
    const r = a * p;
    if (Number.isSafeInteger(r)) return r + 0;
  }
  const n = toBig(b);
  return normInt(left ? toBig(a) << n : toBig(a) >> n);
}

export function intNeg(a: number | bigint): number | bigint {
  if (typeof a === 'number') return a === 0 ? 0 : -a;
  return normInt(-a);
}

export function intInvert(a: number | bigint): number | bigint {
  if (typeof a === 'number' && (a | 0) === a) return ~a;
  return normInt(~toBig(a));
}

/** Float floor division and modulo with Starlark's sign rules. */
export function floatFloorDiv(x: number, y: number): number {
  if (y === 0) throw new StarlarkError('floored division by zero');
  return Math.floor(x / y);
}

export function floatMod(x: number, y: number): number {
  if (y === 0) throw new StarlarkError('floating-point modulo by zero');
  let r = x % y;
  if (r !== 0 && r < 0 !== y < 0) r += y;
  return r;
}

export function floatDiv(x: number, y: number): number {
  if (y === 0) throw new StarlarkError('floating-point division by zero');
  return x / y;
}

/** Exact int value of an integral float (for `int(f)`), failing for NaN and infinities. */
export function floatToInt(f: number): number | bigint {
  if (f !== f) throw new StarlarkError('cannot convert float NaN to integer');
  if (!Number.isFinite(f)) throw new StarlarkError('cannot convert float infinity to integer');
  const t = Math.trunc(f);
  if (Number.isSafeInteger(t)) return t + 0;
  return BigInt(t);
}
