/**
 * Operator slow paths for generated code (gen-binary.ts inlines the small-int fast paths before
 * calling these). Each takes the frame and the position to report, and sets `f.pos` only where
 * the closure compiler's operator closures do, so error positions agree between backends.
 */
import { binary, normInt, unary, type Value } from '../values/index.js';
import {
  intAdd,
  intAnd,
  intMod,
  intMul,
  intOr,
  intShift,
  intSub,
  intXor,
  pow2Bits,
  toBig,
} from '../values/arith.js';
import { inplaceBinary } from './compile-stmt.js';
import type { Frame } from './function.js';

type Int = number | bigint;

export function isInt(v: Value): v is Int {
  const t = typeof v;
  return t === 'number' || t === 'bigint';
}

export function bin(f: Frame, p: number, op: string, a: Value, b: Value): Value {
  f.pos = p;
  return binary(op, a, b, f.thread);
}

export function add(f: Frame, p: number, a: Value, b: Value): Value {
  if (typeof a === 'string' && typeof b === 'string') {
    const n = a.length + b.length;
    if (n > f.thread.maxAlloc) f.thread.alloc(n);
    return a + b;
  }
  if (isInt(a) && isInt(b)) return intAdd(a, b);
  return bin(f, p, '+', a, b);
}

export function sub(f: Frame, p: number, a: Value, b: Value): Value {
  return isInt(a) && isInt(b) ? intSub(a, b) : bin(f, p, '-', a, b);
}

export function mul(f: Frame, p: number, a: Value, b: Value): Value {
  return isInt(a) && isInt(b) ? intMul(a, b) : bin(f, p, '*', a, b);
}

let lastModulus = 0;
let lastModulusBig = 0n;

/** `BigInt(b)` of a loop's modulus, made once while the same one comes back. */
function modulusBig(b: number): bigint {
  if (b !== lastModulus) {
    lastModulus = b;
    lastModulusBig = BigInt(b);
  }
  return lastModulusBig;
}

export function mod(f: Frame, p: number, a: Value, b: Value): Value {
  if (typeof b === 'bigint' && b > 0n && isInt(a)) return intMod(a, b);
  if (typeof b === 'number' && b > 0 && typeof a === 'bigint') {
    // As the closures' `x % K`: a big dividend meeting a small positive modulus.
    const kb = modulusBig(b);
    // A power-of-two modulus (PRNGs wrapping at 2^31) truncates rather than divides.
    const bits = pow2Bits(kb);
    if (bits >= 0) return Number(BigInt.asUintN(bits, a));
    const r = a % kb;
    return Number(r < 0n ? r + kb : r);
  }
  return bin(f, p, '%', a, b);
}

export function xor(f: Frame, p: number, a: Value, b: Value): Value {
  // Hashes mix a small int into a big accumulator.
  if (typeof a === 'bigint' && typeof b === 'number') return normInt(a ^ toBig(b));
  return isInt(a) && isInt(b) ? intXor(a, b) : bin(f, p, '^', a, b);
}

export function and(f: Frame, p: number, a: Value, b: Value): Value {
  return isInt(a) && isInt(b) ? intAnd(a, b) : bin(f, p, '&', a, b);
}

export function or(f: Frame, p: number, a: Value, b: Value): Value {
  return isInt(a) && isInt(b) ? intOr(a, b) : bin(f, p, '|', a, b);
}

/** `a << b`: intShift for a count it accepts; any other through `bin`, which sets the position. */
export function shl(f: Frame, p: number, a: Value, b: Value): Value {
  if (typeof b === 'number' && b >= 0 && b < 512 && isInt(a)) return intShift(a, b, true);
  return bin(f, p, '<<', a, b);
}

/** `a >> b`: the closures' `x >> K` paths, for any small non-negative shift. */
export function shr(f: Frame, p: number, a: Value, b: Value): Value {
  if (typeof b === 'number' && b >= 0 && b < 512) {
    // Dividing by a power of two is exact, so flooring it is the arithmetic shift.
    if (typeof a === 'number') return Math.floor(a / 2 ** b) + 0;
    if (typeof a === 'bigint') return normInt(a >> toBig(b));
  }
  return bin(f, p, '>>', a, b);
}

export function neg(f: Frame, p: number, v: Value): Value {
  f.pos = p;
  return unary('-', v);
}

export function unop(f: Frame, p: number, op: '+' | '~', v: Value): Value {
  f.pos = p;
  return unary(op, v);
}

/** `x op= y` on a name: the closures' order of position update and operator. */
export function augment(f: Frame, p: number, op: string, a: Value, b: Value): Value {
  if (op === '+') {
    if (typeof a === 'number' && typeof b === 'number') {
      const r = a + b;
      if (r <= Number.MAX_SAFE_INTEGER && r >= Number.MIN_SAFE_INTEGER) return r;
    }
  } else if (isInt(a) && isInt(b)) {
    // The int operators that cannot fail (as `binary` computes them), without its dispatch.
    if (op === '^') return intXor(a, b);
    if (op === '&') return intAnd(a, b);
    if (op === '|') return intOr(a, b);
    if (op === '-') return intSub(a, b);
  }
  f.pos = p;
  return inplaceBinary(op, a, b, f.thread);
}
