import { nearest, paramError, truth } from '../values/ops.js';
import {
  builtin,
  compareDepth,
  maxCompareDepth,
  isCallable,
  List,
  None,
  StarlarkError,
  refuseSecret,
  typeName,
  type Builtin,
  type Thread,
  type Value,
} from '../values/index.js';
import { stableSort } from './stable-sort.js';
import { sortNonNegative, tupleKeySort } from './tuple-sort.js';
import { isIterable, iterableArg, iterableParam } from './args.js';

/** Ordering builtins: sorted, min, max. */

function cmp(a: Value, b: Value): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return compareDepth(a, b, maxCompareDepth);
}

function keyFunction(fnName: string, key: Value | undefined): Value | undefined {
  if (key === undefined || (key === None && fnName !== 'sorted')) return undefined;
  if (!isCallable(key)) throw paramError(fnName, 'key', key, 'callable');
  return key;
}

function computeKeys(thread: Thread, key: Value | undefined, items: Value[]): Value[] {
  if (key === undefined) return items;
  // `map` sizes the result once (a growing array is copied again and again before V8 has
  // optimised the loop) and leaves it packed.
  return items.map((x) => thread.call(key, [x], null));
}

/**
 * Homogeneous int or string keys, and tuples of such columns, sort natively (V8's sort is
 * stable); others take the Go-shaped sort.
 */
function sortIndices(order: number[], keys: Value[], reverse: boolean): void {
  const kind = homogeneous(keys);
  if (kind === 'number') {
    const k = keys as number[];
    if (!packedIntSort(order, k, reverse))
      order.sort(reverse ? (i, j) => k[j]! - k[i]! : (i, j) => k[i]! - k[j]!);
  } else if (kind === 'string') {
    const k = keys as string[];
    if (!groupedStrSort(order, k, reverse))
      order.sort(reverse ? (i, j) => strCmp(k[j]!, k[i]!) : (i, j) => strCmp(k[i]!, k[j]!));
  } else if (!tupleKeySort(order, keys, reverse)) {
    stableSort(
      order,
      reverse ? (i, j) => cmp(keys[j]!, keys[i]!) < 0 : (i, j) => cmp(keys[i]!, keys[j]!) < 0,
    );
  }
}

const INDEX_BITS = 2 ** 21;

/**
 * Int keys whose spread fits in 32 bits sort with no comparator calls: the key's offset and
 * the element's index pack exactly into one float64 (below 2^53), and the index breaks ties,
 * so the native numeric sort is stable. Returns false when the keys do not fit.
 */
function packedIntSort(order: number[], k: number[], reverse: boolean): boolean {
  const n = k.length;
  if (n >= INDEX_BITS) return false;
  let min = k[0]!;
  let max = min;
  for (let i = 1; i < n; i++) {
    const x = k[i]!;
    if (x < min) min = x;
    else if (x > max) max = x;
  }
  if (max - min >= 2 ** 32) return false;
  const packed = new Float64Array(n);
  for (let i = 0; i < n; i++) packed[i] = (reverse ? max - k[i]! : k[i]! - min) * INDEX_BITS + i;
  sortNonNegative(packed);
  // `| 0` keeps `order` an array of small ints, which `sortedFn` then indexes quickly.
  for (let i = 0; i < n; i++) order[i] = (packed[i]! % INDEX_BITS) | 0;
  return true;
}

/**
 * String keys with many repeats (at most one distinct key per four elements) sort by sorting
 * the distinct keys and then placing elements by a counting sort, which keeps ties in input
 * order. Returns false, having changed nothing, when the keys are too varied.
 */
function groupedStrSort(order: number[], k: string[], reverse: boolean): boolean {
  const n = k.length;
  const ids = new Map<string, number>();
  const distinct: string[] = [];
  const group = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const s = k[i]!;
    let g = ids.get(s);
    if (g === undefined) {
      g = distinct.length;
      if (g * 4 > n) return false;
      ids.set(s, g);
      distinct.push(s);
    }
    group[i] = g;
  }
  const d = distinct.length;
  const byKey = distinct.map((_, g) => g);
  byKey.sort(
    reverse
      ? (a, b) => strCmp(distinct[b]!, distinct[a]!)
      : (a, b) => strCmp(distinct[a]!, distinct[b]!),
  );
  // start[g]: first output position of group g.
  const start = new Int32Array(d);
  const count = new Int32Array(d);
  for (let i = 0; i < n; i++) count[group[i]!]!++;
  let pos = 0;
  for (let r = 0; r < d; r++) {
    const g = byKey[r]!;
    start[g] = pos;
    pos += count[g]!;
  }
  for (let i = 0; i < n; i++) order[start[group[i]!]!++] = i;
  return true;
}

function strCmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function homogeneous(keys: Value[]): 'number' | 'string' | 'mixed' {
  if (keys.length === 0) return 'mixed';
  const t = typeof keys[0];
  if (t !== 'number' && t !== 'string') return 'mixed';
  for (let i = 1; i < keys.length; i++) if (typeof keys[i] !== t) return 'mixed';
  return t;
}

function sortedFn(thread: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  if (args.length !== 1) throw new StarlarkError(`sorted: got ${args.length} arguments, want 1`);
  let key: Value | undefined;
  let reverse = false;
  if (kwargs !== null) {
    for (const [k, v] of kwargs) {
      if (k === 'key') key = keyFunction('sorted', v);
      else if (k === 'reverse') reverse = truth(v);
      else throw new StarlarkError(`sorted: unexpected keyword argument ${k}`);
    }
  }
  const items = iterableParam('sorted', 'iterable', args[0]!, thread);
  // n log n comparisons, each a step.
  thread.steps(Math.ceil(items.length * Math.log2(items.length + 1)));
  const keys = computeKeys(thread, key, items);
  const n = items.length;
  // Sized at once: growing arrays element by element is most of a cold sort's own time.
  const order = new Array<number>(n);
  for (let i = 0; i < n; i++) order[i] = i;
  sortIndices(order, keys, reverse);
  return new List(order.map((i) => items[i]!));
}

function extremum(name: 'min' | 'max', sign: number): Builtin {
  return builtin(name, (thread, args, kwargs) => {
    let key: Value | undefined;
    let dflt: Value | undefined;
    if (kwargs !== null) {
      for (const [k, v] of kwargs) {
        if (k === 'key') key = keyFunction(name, v);
        else if (k === 'default') dflt = v;
        else {
          const near = nearest(k, ['key', 'default']);
          const hint = near === undefined ? '' : ` (did you mean ${near}?)`;
          throw new StarlarkError(`${name}: unexpected keyword argument ${k}${hint}`);
        }
      }
    }
    if (args.length === 0)
      throw new StarlarkError(`${name} requires at least one positional argument`);
    let items: Value[];
    if (args.length === 1) {
      const x = args[0]!;
      refuseSecret(x, name);
      if (!isIterable(x)) throw new StarlarkError(`${name}: ${typeName(x)} value is not iterable`);
      items = iterableArg(name, x, thread);
    } else {
      if (dflt !== undefined)
        throw new StarlarkError(
          `${name}: cannot use default with more than one positional argument`,
        );
      items = args;
    }
    if (items.length === 0) {
      if (dflt !== undefined) return dflt;
      throw new StarlarkError(`${name}: argument is an empty sequence`);
    }
    let best = items[0]!;
    let bestKey = key === undefined ? best : thread.call(key, [best], null);
    for (let i = 1; i < items.length; i++) {
      const v = items[i]!;
      const k = key === undefined ? v : thread.call(key, [v], null);
      if (cmp(k, bestKey) * sign < 0) {
        best = v;
        bestKey = k;
      }
    }
    return best;
  });
}

export const sortBuiltins: Builtin[] = [
  builtin('sorted', sortedFn),
  extremum('min', 1),
  extremum('max', -1),
];
