import { Secret } from './secret.js';
import { typeName } from './type-name.js';
import { None, SFloat, StarlarkError, StarlarkObject, type Value } from './value.js';

/** Nesting bound for comparisons; exceeding it is how cyclic structures are reported. */
export const maxCompareDepth = 100;

export type CompareOp = '<' | '<=' | '>' | '>=';

function depthError(): StarlarkError {
  return new StarlarkError('comparison exceeded maximum recursion depth');
}

/** Total order on floats used by Starlark: NaN equals NaN and sorts above everything. */
export function cmpFloat(a: number, b: number): number {
  if (a !== a) return b !== b ? 0 : 1;
  if (b !== b) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Exact comparison of a bigint with a float. */
function cmpBigFloat(b: bigint, f: number): number {
  if (f !== f) return -1;
  if (f === Infinity) return -1;
  if (f === -Infinity) return 1;
  const fl = Math.floor(f);
  const bf = BigInt(fl);
  if (b < bf) return -1;
  if (b > bf) return 1;
  return fl === f ? 0 : -1;
}

/** Compares two numeric values (int or float); `undefined` if either is not numeric. */
export function cmpNumbers(x: Value, y: Value): number | undefined {
  const tx = typeof x;
  const ty = typeof y;
  if (tx === 'number') {
    if (ty === 'number')
      return (x as number) < (y as number) ? -1 : (x as number) > (y as number) ? 1 : 0;
    if (ty === 'bigint') return (y as bigint) > 0n ? -1 : 1;
    if (y instanceof SFloat) return cmpFloat(x as number, y.v);
    return undefined;
  }
  if (tx === 'bigint') {
    if (ty === 'number') return (x as bigint) > 0n ? 1 : -1;
    if (ty === 'bigint')
      return (x as bigint) < (y as bigint) ? -1 : (x as bigint) > (y as bigint) ? 1 : 0;
    if (y instanceof SFloat) return cmpBigFloat(x as bigint, y.v);
    return undefined;
  }
  if (x instanceof SFloat) {
    if (ty === 'number') return cmpFloat(x.v, y as number);
    if (ty === 'bigint') return -cmpBigFloat(y as bigint, x.v);
    if (y instanceof SFloat) return cmpFloat(x.v, y.v);
  }
  return undefined;
}

/** Starlark `x == y`. */
export function equals(x: Value, y: Value): boolean {
  if (x === y && typeof x !== 'object') return true;
  return equalsDepth(x, y, maxCompareDepth);
}

export function equalsDepth(x: Value, y: Value, depth: number): boolean {
  switch (typeof x) {
    case 'string':
      // A secret is never equal to a string, but saying so would be an answer about its text.
      return x === y || (typeof y === 'object' && refuseEquality(y));
    case 'boolean':
      return x === y;
    case 'number':
      if (typeof y === 'number') return x === y;
      return y instanceof SFloat ? x === y.v : false;
    case 'bigint':
      if (typeof y === 'bigint') return x === y;
      return y instanceof SFloat ? cmpBigFloat(x, y.v) === 0 : false;
    default:
      if (x instanceof SFloat) {
        if (y instanceof SFloat) return cmpFloat(x.v, y.v) === 0;
        if (typeof y === 'number') return x.v === y;
        if (typeof y === 'bigint') return cmpBigFloat(y, x.v) === 0;
        return false;
      }
      if (x === None) return y === None;
      if (typeof y !== 'object' || y === None || y instanceof SFloat) {
        // `secret == None` only asks whether the handle is set, which truthiness tells too.
        return y !== None && refuseEquality(x);
      }
      if (depth < 1) throw depthError();
      return (x as StarlarkObject).equals(y, depth - 1);
  }
}

/** False for anything but a secret, whose equality with anything but None is a read. */
function refuseEquality(v: Value): false {
  if (v instanceof Secret) throw v.refuse('==');
  return false;
}

/**
 * The language's runtime error for operands with no order between them (`1 < "a"`,
 * `sorted([1, None])`): a complete, deliberate answer, not a missing feature. Its text is the one
 * the official suite asserts verbatim (go/starlark/builtins.star: "int < NoneType not
 * implemented", "range < range not implemented"), so it must not be reworded. `compare`
 * re-raises it naming its own operator and operands.
 */
export class UnorderedError extends StarlarkError {
  constructor(x: Value, op: string, y: Value) {
    super(`${typeName(x)} ${op} ${typeName(y)} not implemented`);
  }
}

/** The error for `x op y` without an order; a secret operand is refused as the read it would be. */
function unordered(x: Value, op: string, y: Value): StarlarkError {
  const secret = x instanceof Secret ? x : y instanceof Secret ? y : undefined;
  return secret === undefined ? new UnorderedError(x, op, y) : secret.refuse(op);
}

/** Three-way comparison for ordering (`sorted`, `<`); UnorderedError for unordered operands. */
export function compareDepth(x: Value, y: Value, depth: number): number {
  const tx = typeof x;
  if (tx === 'string' && typeof y === 'string') return x < y ? -1 : x > y ? 1 : 0;
  const n = cmpNumbers(x, y);
  if (n !== undefined) return n;
  if (tx === 'boolean' && typeof y === 'boolean') return x === y ? 0 : x ? 1 : -1;
  if (tx === 'object' && typeof y === 'object' && x !== None && !(x instanceof SFloat)) {
    const o = x as StarlarkObject;
    if (y !== None && !(y instanceof SFloat) && (y as StarlarkObject).typeName === o.typeName) {
      if (depth < 1) throw depthError();
      const r = o.compareSameType(y, depth - 1);
      if (r !== undefined) return r;
    }
  }
  throw unordered(x, '<', y);
}

/** Starlark ordered comparison `x op y`. */
export function compare(op: CompareOp, x: Value, y: Value): boolean {
  let c: number;
  if (typeof x === 'number' && typeof y === 'number') c = x < y ? -1 : x > y ? 1 : 0;
  else {
    if (x instanceof StarlarkObject) {
      const r = x.compareOp(op, y);
      if (r !== undefined) return r;
    }
    try {
      c = compareDepth(x, y, maxCompareDepth);
    } catch (e) {
      if (e instanceof UnorderedError) throw unordered(x, op, y);
      throw e;
    }
  }
  switch (op) {
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    default:
      return c >= 0;
  }
}

/** Lexicographic comparison of two sequences (lists, tuples). */
export function compareSequences(a: readonly Value[], b: readonly Value[], depth: number): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (!equalsDepth(x, y, depth)) return compareDepth(x, y, depth);
  }
  return a.length - b.length < 0 ? -1 : a.length > b.length ? 1 : 0;
}

export function equalSequences(a: readonly Value[], b: readonly Value[], depth: number): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!equalsDepth(a[i]!, b[i]!, depth)) return false;
  return true;
}
