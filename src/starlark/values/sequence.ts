import { intInvert, intNeg } from './arith.js';
import { Bytes } from './bytes.js';
import { Dict } from './dict.js';
import { ArrayIterator } from './iteration.js';
import { List } from './list.js';
import { Range } from './range.js';
import { refuseSecret } from './secret.js';
import { Tuple } from './tuple.js';
import { typeName } from './type-name.js';
import {
  None,
  SFloat,
  StarlarkError,
  StarlarkObject,
  type Value,
  type ValueIterator,
} from './value.js';

/** Starlark truth value. */
export function truth(x: Value): boolean {
  switch (typeof x) {
    case 'boolean':
      return x;
    case 'number':
      return x !== 0;
    case 'string':
      return x.length > 0;
    case 'bigint':
      return true;
    default:
      if (x === None) return false;
      if (x instanceof SFloat) return x.v !== 0;
      return (x as StarlarkObject).truth();
  }
}

/** `len(x)`, or -1 when `x` has no length. */
export function lenOrNeg(x: Value): number {
  if (typeof x === 'string') return x.length;
  if (x instanceof StarlarkObject) {
    const n = x.length();
    return n === undefined ? -1 : n;
  }
  return -1;
}

export function len(x: Value): number {
  const n = lenOrNeg(x);
  if (n < 0) throw new StarlarkError(`value of type ${typeName(x)} has no len`);
  return n;
}

/** Converts an index operand to a JS number; `what` names it in the error. */
export function toIndexInt(v: Value, what: string): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return v < 0n ? -Infinity : Infinity;
  refuseSecret(v, what);
  throw new StarlarkError(`${what}: got ${typeName(v)}, want int`);
}

function outOfRange(i: number | string, n: number, type: string): StarlarkError {
  if (n === 0) return new StarlarkError(`index ${i} out of range: empty ${type}`);
  return new StarlarkError(`${type} index ${i} out of range [${-n}:${n - 1}]`);
}

/** Resolves a possibly negative index against length `n`, failing when out of range. */
export function checkIndex(idx: Value, n: number, type: string): number {
  const i = toIndexInt(idx, `${type} index`);
  const j = i < 0 ? i + n : i;
  if (j < 0 || j >= n) throw outOfRange(typeof idx === 'bigint' ? String(idx) : i, n, type);
  return j;
}

/** `x[i]`. */
export function index(x: Value, i: Value): Value {
  if (x instanceof List) {
    const items = x.items;
    if (typeof i === 'number' && i >= 0 && i < items.length) return items[i]!;
    return items[checkIndex(i, items.length, 'list')]!;
  }
  if (typeof x === 'string') return x[checkIndex(i, x.length, 'string')]!;
  if (x instanceof Dict) return x.getIndex(i);
  if (x instanceof Tuple) return x.items[checkIndex(i, x.items.length, 'tuple')]!;
  if (x instanceof Range) return x.at(checkIndex(i, x.len, 'range'));
  if (x instanceof Bytes) {
    const j = checkIndex(i, x.data.length, 'bytes');
    return new Bytes(x.data.slice(j, j + 1));
  }
  if (x instanceof StarlarkObject) {
    const v = x.getIndex(i);
    if (v !== undefined) return v;
  }
  refuseSecret(i, 'index');
  throw new StarlarkError(`unhandled index operation ${typeName(x)}[${typeName(i)}]`);
}

/** `x[i] = v`. */
export function setIndex(x: Value, i: Value, v: Value): void {
  if (x instanceof List) {
    x.checkMutable('assign to element of');
    x.items[checkIndex(i, x.items.length, 'list')] = v;
    return;
  }
  if (x instanceof Dict) {
    x.set(i, v);
    return;
  }
  if (x instanceof StarlarkObject && typeof (x as { setIndex?: unknown }).setIndex === 'function') {
    (x as unknown as { setIndex(i: Value, v: Value): void }).setIndex(i, v);
    return;
  }
  throw new StarlarkError(`${typeName(x)} value does not support item assignment`);
}

function sliceBound(v: Value, what: string): number | undefined {
  if (v === None) return undefined;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return v < 0n ? -Number.MAX_SAFE_INTEGER : Number.MAX_SAFE_INTEGER;
  refuseSecret(v, what);
  throw new StarlarkError(`invalid ${what}: got ${typeName(v)}, want int`);
}

/** Python slice semantics: the indices selected by [lo:hi:step] over length n. */
export function sliceIndices(
  n: number,
  lo: Value,
  hi: Value,
  stepV: Value,
): [number, number, number] {
  const step = sliceBound(stepV, 'slice step') ?? 1;
  if (step === 0) throw new StarlarkError('zero is not a valid slice step');
  let start = sliceBound(lo, 'start index');
  let end = sliceBound(hi, 'end index');
  if (step > 0) {
    start = start === undefined ? 0 : start < 0 ? Math.max(0, start + n) : Math.min(start, n);
    end = end === undefined ? n : end < 0 ? Math.max(0, end + n) : Math.min(end, n);
  } else {
    start =
      start === undefined ? n - 1 : start < 0 ? Math.max(-1, start + n) : Math.min(start, n - 1);
    end = end === undefined ? -1 : end < 0 ? Math.max(-1, end + n) : Math.min(end, n - 1);
  }
  return [start, end, step];
}

function pick<T>(src: ArrayLike<T>, start: number, end: number, step: number): T[] {
  const out: T[] = [];
  if (step > 0) for (let i = start; i < end; i += step) out.push(src[i]!);
  else for (let i = start; i > end; i += step) out.push(src[i]!);
  return out;
}

/** `x[lo:hi:step]`; absent bounds are `None`. */
export function slice(x: Value, lo: Value, hi: Value, step: Value): Value {
  if (typeof x === 'string') {
    const [s, e, st] = sliceIndices(x.length, lo, hi, step);
    if (st === 1) return s < e ? x.slice(s, e) : '';
    return pick(x, s, e, st).join('');
  }
  if (x instanceof List) {
    const [s, e, st] = sliceIndices(x.items.length, lo, hi, step);
    return new List(st === 1 ? x.items.slice(s, Math.max(s, e)) : pick(x.items, s, e, st));
  }
  if (x instanceof Tuple) {
    const [s, e, st] = sliceIndices(x.items.length, lo, hi, step);
    return new Tuple(st === 1 ? x.items.slice(s, Math.max(s, e)) : pick(x.items, s, e, st));
  }
  if (x instanceof Range) {
    const [s, e, st] = sliceIndices(x.len, lo, hi, step);
    const start = x.start + s * x.step;
    const stop = x.start + e * x.step;
    return new Range(start, stop, x.step * st);
  }
  if (x instanceof Bytes) {
    const [s, e, st] = sliceIndices(x.data.length, lo, hi, step);
    return new Bytes(
      st === 1 ? x.data.slice(s, Math.max(s, e)) : Uint8Array.from(pick(x.data, s, e, st)),
    );
  }
  refuseSecret(x, 'slicing');
  throw new StarlarkError(`invalid slice operand ${typeName(x)}`);
}

const emptyIterator: ValueIterator = { next: () => undefined, done: () => {} };

/** Starts iterating `x`; callers must call `done()` (in a finally) when they stop. */
export function iterate(x: Value): ValueIterator {
  if (x instanceof List) return new ArrayIterator(x.items, x.frozen ? null : x);
  if (x instanceof StarlarkObject) {
    const it = x.iterate();
    if (it !== undefined) return it;
  }
  throw new StarlarkError(`${typeName(x)} value is not iterable`);
}

/** Iterator, or undefined when `x` is not iterable. */
export function tryIterate(x: Value): ValueIterator | undefined {
  if (x instanceof StarlarkObject) return x.iterate();
  return undefined;
}

/** Collects the elements of an iterable into a fresh array (charging no steps). */
export function toArray(x: Value): Value[] {
  if (x instanceof List || x instanceof Tuple) return x.items.slice();
  const it = iterate(x);
  const out: Value[] = [];
  try {
    for (let v = it.next(); v !== undefined; v = it.next()) out.push(v);
  } finally {
    it.done();
  }
  return out;
}

export { emptyIterator };

/** Unary `-x`, `+x`, `~x`, `not x`. */
export function unary(op: '-' | '+' | '~' | 'not', x: Value): Value {
  if (op === 'not') return !truth(x);
  if (typeof x === 'number' || typeof x === 'bigint') {
    if (op === '-') return intNeg(x);
    if (op === '+') return x;
    return intInvert(x);
  }
  if (x instanceof SFloat && op !== '~') return op === '-' ? new SFloat(-x.v) : x;
  refuseSecret(x, `unary ${op}`);
  throw new StarlarkError(`unknown unary op: ${op} ${typeName(x)}`);
}
