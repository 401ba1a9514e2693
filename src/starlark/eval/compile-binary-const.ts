import { binary, normInt, type Value } from '../values/index.js';
import { intMul, pow2Bits } from '../values/arith.js';
import type { Eval } from './compile-expr.js';
import type { Frame } from './function.js';

const MAX = Number.MAX_SAFE_INTEGER;
const MIN = Number.MIN_SAFE_INTEGER;

/** `x op K` for a small int constant K: the hottest shapes in loops (`i + 1`, `n < 2`, `i % 3`). */
export function constRight(op: string, x: Eval, k: number, p: number): Eval | null {
  const slow = (f: Frame, a: Value): Value => {
    f.pos = p;
    return binary(op, a, k, f.thread);
  };
  // Big ints meet small constants in hashing and PRNG loops; the constant is converted once.
  const kb = BigInt(k);
  switch (op) {
    case '+':
      return (f) => {
        const a = x(f);
        if (typeof a === 'number') {
          const r = a + k;
          if (r <= MAX && r >= MIN) return r;
        } else if (typeof a === 'bigint') return normInt(a + kb);
        return slow(f, a);
      };
    case '-':
      return (f) => {
        const a = x(f);
        if (typeof a === 'number') {
          const r = a - k;
          if (r <= MAX && r >= MIN) return r;
        }
        return slow(f, a);
      };
    case '%': {
      if (k <= 0) return null;
      // A power-of-two modulus (PRNGs wrapping at 2^31) truncates rather than divides.
      const bits = pow2Bits(kb);
      if (bits >= 0)
        return (f) => {
          const a = x(f);
          if (typeof a === 'number') return a >= 0 ? a % k : slow(f, a);
          if (typeof a === 'bigint') return Number(BigInt.asUintN(bits, a));
          return slow(f, a);
        };
      return (f) => {
        const a = x(f);
        if (typeof a === 'number') return a >= 0 ? a % k : slow(f, a);
        if (typeof a === 'bigint') {
          const r = a % kb;
          return Number(r < 0n ? r + kb : r);
        }
        return slow(f, a);
      };
    }
    case '*':
      return (f) => {
        const a = x(f);
        if (typeof a === 'number') {
          const r = a * k;
          if (r <= MAX && r >= MIN) return r + 0;
        }
        if (typeof a === 'number' || typeof a === 'bigint') return intMul(a, k);
        return slow(f, a);
      };
    case '>>':
      if (k < 0 || k >= 512) return null;
      return (f) => {
        const a = x(f);
        // Dividing by a power of two is exact, so flooring it is the arithmetic shift.
        if (typeof a === 'number') return Math.floor(a / 2 ** k) + 0;
        if (typeof a === 'bigint') return normInt(a >> kb);
        return slow(f, a);
      };
    case '<':
      return (f) => {
        const a = x(f);
        return typeof a === 'number' ? a < k : slow(f, a);
      };
    case '<=':
      return (f) => {
        const a = x(f);
        return typeof a === 'number' ? a <= k : slow(f, a);
      };
    case '>':
      return (f) => {
        const a = x(f);
        return typeof a === 'number' ? a > k : slow(f, a);
      };
    case '>=':
      return (f) => {
        const a = x(f);
        return typeof a === 'number' ? a >= k : slow(f, a);
      };
    case '==':
      return (f) => {
        const a = x(f);
        return typeof a === 'number' ? a === k : slow(f, a);
      };
    case '!=':
      return (f) => {
        const a = x(f);
        return typeof a === 'number' ? a !== k : slow(f, a);
      };
    default:
      return null;
  }
}
