import { binary, type Value } from '../values/index.js';
import type * as A from '../syntax/ast.js';
import { unparen } from '../syntax/ast.js';
import type { Eval } from './compile-expr.js';
import { encodePos } from './context.js';
import type { Frame } from './function.js';

/**
 * `(x * y) % K`, `(x * y + z) % K` and `(x * y - z) % K` for a literal K = 2^k <= 2^32: the
 * shape of linear congruential generators and multiplicative hashes. The product of two small
 * ints often passes 2^53, which would make a bigint for the product and the sum only for `%`
 * to bring the result back below K. Modulo 2^32 the product is `Math.imul` of the operands
 * (which it reduces modulo 2^32 first), and 2^k divides 2^32, so the result is the same
 * integer with no bigint at all. Operands are evaluated in source order, and anything but
 * small ints takes the generic operators.
 */

const MAX_MODULUS = 2 ** 32;

function smallLiteral(e: A.Expr): number | null {
  e = unparen(e);
  return e.kind === 'Literal' && e.value.type === 'int' && typeof e.value.v === 'number'
    ? e.value.v
    : null;
}

function isPowerOfTwo(k: number): boolean {
  return k > 0 && k <= MAX_MODULUS && 2 ** Math.round(Math.log2(k)) === k;
}

export interface MulModShape {
  readonly k: number;
  readonly mul: A.BinaryExpr;
  /** The `+`/`-` node around the product, if any, and its right operand. */
  readonly sum: A.BinaryExpr | null;
  readonly addend: A.Expr | null;
}

/** The parts of `e` when it has one of the shapes above, else null. */
export function mulModShape(e: A.BinaryExpr): MulModShape | null {
  const k = smallLiteral(e.y);
  if (e.op !== '%' || k === null || !isPowerOfTwo(k)) return null;
  const left = unparen(e.x);
  if (left.kind !== 'Binary') return null;
  let mul: A.BinaryExpr;
  let addend: A.Expr | null = null;
  if (left.op === '*') mul = left;
  else if (left.op === '+' || left.op === '-') {
    const m = unparen(left.x);
    if (m.kind !== 'Binary' || m.op !== '*') return null;
    mul = m;
    addend = left.y;
  } else return null;
  return { k, mul, sum: addend === null ? null : (left as A.BinaryExpr), addend };
}

/** The fused closure; `x`, `y` and `z` are the compiled factors and addend (z null without one). */
export function mulModEval(
  s: MulModShape,
  e: A.BinaryExpr,
  x: Eval,
  y: Eval,
  z: Eval | null,
): Eval {
  const { k, mul, sum } = s;
  const sign = sum === null || sum.op === '+' ? 1 : -1;
  const mulPos = encodePos(mul);
  const addPos = sum === null ? 0 : encodePos(sum);
  const modPos = encodePos(e);
  const addOp = sign > 0 ? '+' : '-';
  /** The generic operators, from the evaluated product operands on. */
  const slow = (f: Frame, a: Value, b: Value): Value => {
    f.pos = mulPos;
    let v = binary('*', a, b, f.thread);
    if (z !== null) {
      const d = z(f);
      f.pos = addPos;
      v = binary(addOp, v, d, f.thread);
    }
    f.pos = modPos;
    return binary('%', v, k, f.thread);
  };
  return (f) => {
    const a = x(f);
    const b = y(f);
    if (typeof a !== 'number' || typeof b !== 'number') return slow(f, a, b);
    // A product of two small ints cannot fail, so evaluating z now keeps the source order.
    const d = z === null ? 0 : z(f);
    if (typeof d !== 'number') {
      const p = a * b;
      f.pos = addPos;
      const v = binary(addOp, Number.isSafeInteger(p) ? p + 0 : BigInt(a) * BigInt(b), d, f.thread);
      f.pos = modPos;
      return binary('%', v, k, f.thread);
    }
    // `>>> 0` reduces modulo 2^32, exactly, for any safe int.
    const lo = Math.imul(a, b) >>> 0;
    const t = sign > 0 ? lo + (d >>> 0) : lo - (d >>> 0);
    const r = t % k;
    return r < 0 ? r + k : r + 0;
  };
}
