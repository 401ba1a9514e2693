import { universe } from '../../../src/starlark/lib/index.js';
import { callMethod, getAttr } from '../../../src/starlark/values/ops.js';
import { isCallable, type Value } from '../../../src/starlark/values/index.js';
import { FakeThread } from './fake-thread.js';

export const thread = new FakeThread();

/** Calls a universe builtin by name. */
export function call(
  name: string,
  args: Value[],
  kwargs: Array<[string, Value]> | null = null,
): Value {
  const fn = universe.get(name);
  if (fn === undefined || !isCallable(fn)) throw new Error(`no builtin ${name}`);
  return fn.call(thread, args, kwargs);
}

/** Calls method `name` of `recv`. */
export function method(
  recv: Value,
  name: string,
  args: Value[] = [],
  kwargs: Array<[string, Value]> | null = null,
): Value {
  const r = callMethod(thread, recv, name, args, kwargs);
  if (r !== undefined) return r;
  return thread.call(getAttr(recv, name, thread), args, kwargs);
}
