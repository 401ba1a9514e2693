import { binary, truth, type Value } from '../values/index.js';
import { intAdd, intAnd, intMod, intMul, intOr, intSub, intXor } from '../values/arith.js';
import type * as A from '../syntax/ast.js';
import { compileExpr, type Eval } from './compile-expr.js';
import { encodePos, type FnCtx } from './context.js';
import { constRight } from './compile-binary-const.js';
import { mulModEval, mulModShape } from './compile-mulmod.js';
import { modPow2Eval, modPow2Shape } from './compile-mod-pow2.js';

const MAX = Number.MAX_SAFE_INTEGER;
const MIN = Number.MIN_SAFE_INTEGER;

/** Binary operators, with inline fast paths for small ints and strings. */
/** A small int literal operand, which lets the closure skip one call per evaluation. */
function smallInt(e: A.Expr): number | null {
  return e.kind === 'Literal' && e.value.type === 'int' && typeof e.value.v === 'number'
    ? e.value.v
    : null;
}

/** Ints where at least one is a bigint (the all-small case is inlined before this test). */
function bothInts(a: Value, b: Value): a is number | bigint {
  const ta = typeof a;
  const tb = typeof b;
  return (ta === 'bigint' || ta === 'number') && (tb === 'bigint' || tb === 'number');
}

export function binaryExpr(c: FnCtx, e: A.BinaryExpr): Eval {
  const mm = mulModShape(e);
  if (mm !== null) {
    const z = mm.addend === null ? null : compileExpr(c, mm.addend);
    return mulModEval(mm, e, compileExpr(c, mm.mul.x), compileExpr(c, mm.mul.y), z);
  }
  const w = modPow2Shape(e);
  if (w !== null) {
    const mul = w.mul;
    const sum = w.sum;
    const x = compileExpr(c, mul !== null ? mul.x : (sum as A.BinaryExpr).x);
    const y = mul === null ? null : compileExpr(c, mul.y);
    const z = sum === null ? null : compileExpr(c, sum.y);
    return modPow2Eval(w, e, x, y, z, compileExpr(c, e.y));
  }
  const x = compileExpr(c, e.x);
  const k = smallInt(e.y);
  if (k !== null) {
    const special = constRight(e.op, x, k, encodePos(e));
    if (special !== null) return special;
  }
  const y = compileExpr(c, e.y);
  const p = encodePos(e);
  const op = e.op;
  switch (op) {
    case 'and':
      return (f) => {
        const a = x(f);
        return (typeof a === 'boolean' ? a : truth(a)) ? y(f) : a;
      };
    case 'or':
      return (f) => {
        const a = x(f);
        return (typeof a === 'boolean' ? a : truth(a)) ? a : y(f);
      };
    case '+':
      return (f) => {
        const a = x(f);
        const b = y(f);
        if (typeof a === 'number' && typeof b === 'number') {
          const r = a + b;
          if (r <= MAX && r >= MIN) return r;
        } else if (typeof a === 'string' && typeof b === 'string') {
          const n = a.length + b.length;
          if (n > f.thread.maxAlloc) f.thread.alloc(n);
          return a + b;
        }
        if (bothInts(a, b)) return intAdd(a, b as number | bigint);
        f.pos = p;
        return binary('+', a, b, f.thread);
      };
    case '-':
      return (f) => {
        const a = x(f);
        const b = y(f);
        if (typeof a === 'number' && typeof b === 'number') {
          const r = a - b;
          if (r <= MAX && r >= MIN) return r;
        }
        if (bothInts(a, b)) return intSub(a, b as number | bigint);
        f.pos = p;
        return binary('-', a, b, f.thread);
      };
    case '*':
      return (f) => {
        const a = x(f);
        const b = y(f);
        if (typeof a === 'number' && typeof b === 'number') {
          const r = a * b;
          if (r === 0) return 0;
          if (r <= MAX && r >= MIN) return r;
          // Rounding is monotonic, so an unsafe rounded product means an unsafe exact one.
          return BigInt(a) * BigInt(b);
        }
        if (bothInts(a, b)) return intMul(a, b as number | bigint);
        f.pos = p;
        return binary('*', a, b, f.thread);
      };
    case '%':
      return (f) => {
        const a = x(f);
        const b = y(f);
        if (typeof a === 'number' && typeof b === 'number' && a >= 0 && b > 0) return a % b;
        if (typeof b === 'bigint' && b > 0n && (typeof a === 'bigint' || typeof a === 'number'))
          return intMod(a, b);
        f.pos = p;
        return binary('%', a, b, f.thread);
      };
    case '//':
      return (f) => {
        const a = x(f);
        const b = y(f);
        // Small operands only: float division of large ints may round across an integer.
        if (
          typeof a === 'number' &&
          typeof b === 'number' &&
          (a | 0) === a &&
          (b | 0) === b &&
          b !== 0
        ) {
          const r = Math.floor(a / b);
          return r === 0 ? 0 : r;
        }
        f.pos = p;
        return binary('//', a, b, f.thread);
      };
    case '<':
      return (f) => {
        const a = x(f);
        const b = y(f);
        if (typeof a === 'number' && typeof b === 'number') return a < b;
        f.pos = p;
        return binary(op, a, b, f.thread);
      };
    case '<=':
      return (f) => {
        const a = x(f);
        const b = y(f);
        if (typeof a === 'number' && typeof b === 'number') return a <= b;
        f.pos = p;
        return binary(op, a, b, f.thread);
      };
    case '>':
      return (f) => {
        const a = x(f);
        const b = y(f);
        if (typeof a === 'number' && typeof b === 'number') return a > b;
        f.pos = p;
        return binary(op, a, b, f.thread);
      };
    case '>=':
      return (f) => {
        const a = x(f);
        const b = y(f);
        if (typeof a === 'number' && typeof b === 'number') return a >= b;
        f.pos = p;
        return binary(op, a, b, f.thread);
      };
    case '==':
      return (f) => {
        const a = x(f);
        const b = y(f);
        const ta = typeof a;
        if (ta === typeof b && (ta === 'number' || ta === 'string' || ta === 'boolean'))
          return a === b;
        f.pos = p;
        return binary(op, a, b, f.thread);
      };
    case '!=':
      return (f) => {
        const a = x(f);
        const b = y(f);
        const ta = typeof a;
        if (ta === typeof b && (ta === 'number' || ta === 'string' || ta === 'boolean'))
          return a !== b;
        f.pos = p;
        return binary(op, a, b, f.thread);
      };
    case '^':
    case '&':
    case '|': {
      // Hashes mix bigints with small ints here; ints skip the generic operator's dispatch.
      const intOp = op === '^' ? intXor : op === '&' ? intAnd : intOr;
      return (f) => {
        const a = x(f);
        const b = y(f);
        if (bothInts(a, b)) return intOp(a, b as number | bigint);
        f.pos = p;
        return binary(op, a, b, f.thread);
      };
    }
    default:
      return (f) => {
        const a = x(f);
        const b = y(f);
        f.pos = p;
        return binary(op, a, b, f.thread);
      };
  }
}
