import { iterate, paramError } from '../values/ops.js';
import {
  List,
  StarlarkError,
  StarlarkObject,
  Tuple,
  refuseSecret,
  typeName,
  type Thread,
  type Value,
} from '../values/index.js';

/** Shared argument helpers for library builtins. */

/** Elements of an iterable parameter, with UnpackArgs-style wording on failure. */
export function iterableParam(
  fnName: string,
  param: string,
  v: Value,
  thread: Thread | null,
): Value[] {
  const out = collect(v, thread);
  if (out === undefined) throw paramError(fnName, param, v, 'iterable');
  return out;
}

function collect(v: Value, thread: Thread | null): Value[] | undefined {
  if (v instanceof List || v instanceof Tuple) {
    thread?.steps(v.items.length);
    return v.items.slice();
  }
  if (!(v instanceof StarlarkObject)) return undefined;
  refuseSecret(v, 'iteration');
  // Lazy sequences such as range(10**9) must fail the allocation check before materialising.
  const n = v.length();
  if (n !== undefined) thread?.alloc(n);
  const it = v.iterate();
  if (it === undefined) return undefined;
  const out: Value[] = [];
  try {
    for (let x = it.next(); x !== undefined; x = it.next()) out.push(x);
  } finally {
    it.done();
  }
  thread?.steps(out.length);
  return out;
}

/** Elements of an iterable, failing with `NAME: got T, want iterable`. */
export function iterableArg(fnName: string, v: Value, thread: Thread | null): Value[] {
  const out = collect(v, thread);
  if (out === undefined) {
    refuseSecret(v, fnName);
    throw new StarlarkError(`${fnName}: got ${typeName(v)}, want iterable`);
  }
  return out;
}

/**
 * `iterableArg` without the copy of a list's or tuple's own array, for a caller that only reads
 * the items and runs no Starlark code meanwhile. A copy of more than about 16,000 items is a
 * large-object allocation (fresh pages): about 40 ns an item on this machine, more than `join`
 * then spends on them.
 */
export function iterableItems(fnName: string, v: Value, thread: Thread | null): readonly Value[] {
  if (v instanceof List || v instanceof Tuple) {
    thread?.steps(v.items.length);
    return v.items;
  }
  return iterableArg(fnName, v, thread);
}

/** Whether `v` can be iterated. */
export function isIterable(v: Value): boolean {
  if (!(v instanceof StarlarkObject)) return false;
  const it = v.iterate();
  if (it === undefined) return false;
  it.done();
  return true;
}

export { iterate };

export function noKwargs(fnName: string, kwargs: Array<[string, Value]> | null): void {
  if (kwargs !== null && kwargs.length > 0)
    throw new StarlarkError(`${fnName}: unexpected keyword arguments`);
}
