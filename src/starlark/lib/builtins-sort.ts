import { nearest, paramError, truth } from '../values/ops.js';
import {
  builtin,
  compareDepth,
  maxCompareDepth,
  isCallable,
  List,
  None,
  StarlarkError,
  typeName,
  type Builtin,
  type Thread,
  type Value,
} from '../values/index.js';
import { stableSort } from './stable-sort.js';
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
  return items.map((v) => thread.call(key, [v], null));
}

/** Homogeneous int or string keys sort natively (V8's sort is stable); others take the Go-shaped sort. */
function sortIndices(order: number[], keys: Value[], reverse: boolean): void {
  const kind = homogeneous(keys);
  if (kind === 'number') {
    const k = keys as number[];
    order.sort(reverse ? (i, j) => k[j]! - k[i]! : (i, j) => k[i]! - k[j]!);
  } else if (kind === 'string') {
    const k = keys as string[];
    order.sort(reverse ? (i, j) => strCmp(k[j]!, k[i]!) : (i, j) => strCmp(k[i]!, k[j]!));
  } else {
    stableSort(
      order,
      reverse ? (i, j) => cmp(keys[j]!, keys[i]!) < 0 : (i, j) => cmp(keys[i]!, keys[j]!) < 0,
    );
  }
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
  const order = items.map((_, i) => i);
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
