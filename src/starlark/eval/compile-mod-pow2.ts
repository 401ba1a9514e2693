import { binary, normInt, type Value } from '../values/index.js';
import { intAdd, intMul, intSub, pow2Bits, toBig } from '../values/arith.js';
import type * as A from '../syntax/ast.js';
import { unparen } from '../syntax/ast.js';
import type { Eval } from './compile-expr.js';
import { encodePos } from './context.js';
import type { Frame } from './function.js';

/**
 * `(x * y) % m`, `(x * y ± z) % m` and `(x ± z) % m` where m is not a small literal: the shape
 * of wide hashes and PRNGs (`% 18446744073709551616`, or a variable holding it). When m is
 * 2^k at run time, the whole expression is `BigInt.asUintN(k, …)` of the exact result (for
 * k = 64, computed by V8 in 64-bit words) instead of a normalised product divided by m. Operands are evaluated in source order: an int product or sum cannot fail,
 * so reading z and m before applying them is unobservable; anything else takes the generic
 * operators.
 */

function isInt(v: Value): v is number | bigint {
  return typeof v === 'number' || typeof v === 'bigint';
}

export interface ModPow2Shape {
  /** The `*` node, or null for `(x ± z) % m`. */
  readonly mul: A.BinaryExpr | null;
  /** The `+`/`-` node, or null for `(x * y) % m`. */
  readonly sum: A.BinaryExpr | null;
}

/** Only for a modulus that may be a big power of two: a bigint literal or a variable. */
export function modPow2Shape(e: A.BinaryExpr): ModPow2Shape | null {
  if (e.op !== '%') return null;
  const m = unparen(e.y);
  const big = m.kind === 'Literal' && m.value.type === 'int' && typeof m.value.v === 'bigint';
  if (!big && m.kind !== 'Ident') return null;
  const left = unparen(e.x);
  if (left.kind !== 'Binary') return null;
  if (left.op === '*') return { mul: left, sum: null };
  if (left.op !== '+' && left.op !== '-') return null;
  const inner = unparen(left.x);
  return { mul: inner.kind === 'Binary' && inner.op === '*' ? inner : null, sum: left };
}

/**
 * `x`/`y`: the factors (for `(x ± z) % m`, `y` is null and `x` is the left term); `z`: the
 * term added or subtracted, or null; `m`: the modulus.
 */
export function modPow2Eval(
  s: ModPow2Shape,
  e: A.BinaryExpr,
  x: Eval,
  y: Eval | null,
  z: Eval | null,
  m: Eval,
): Eval {
  const minus = s.sum !== null && s.sum.op === '-';
  const mulPos = s.mul === null ? 0 : encodePos(s.mul);
  const sumPos = s.sum === null ? 0 : encodePos(s.sum);
  const modPos = encodePos(e);
  /** The generic operators, from the evaluated left operands on. */
  const slow = (f: Frame, a: Value, b: Value | undefined): Value => {
    let v = a;
    if (b !== undefined) {
      f.pos = mulPos;
      v = binary('*', a, b, f.thread);
    }
    if (z !== null) {
      const d = z(f);
      f.pos = sumPos;
      v = binary(minus ? '-' : '+', v, d, f.thread);
    }
    const k = m(f);
    f.pos = modPos;
    return binary('%', v, k, f.thread);
  };
  return (f) => {
    const a = x(f);
    const b = y === null ? undefined : y(f);
    if (!isInt(a) || (b !== undefined && !isInt(b))) return slow(f, a, b);
    const bi = b as number | bigint | undefined;
    let d: number | bigint = 0;
    if (z !== null) {
      const dv = z(f);
      if (!isInt(dv)) {
        const v = bi === undefined ? a : intMul(a, bi);
        f.pos = sumPos;
        const w = binary(minus ? '-' : '+', v, dv, f.thread);
        const k = m(f);
        f.pos = modPos;
        return binary('%', w, k, f.thread);
      }
      d = dv;
    }
    const k = m(f);
    const bits = typeof k === 'bigint' && k > 0n ? pow2Bits(k) : -1;
    if (bits > 0) {
      const p = bi === undefined ? toBig(a) : toBig(a) * toBig(bi);
      return normInt(BigInt.asUintN(bits, minus ? p - toBig(d) : p + toBig(d)));
    }
    let v = bi === undefined ? a : intMul(a, bi);
    if (z !== null) v = minus ? intSub(v, d) : intAdd(v, d);
    if (typeof v === 'number' && typeof k === 'number' && v >= 0 && k > 0) return v % k;
    f.pos = modPos;
    return binary('%', v, k, f.thread);
  };
}
