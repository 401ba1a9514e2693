import { Builtin, lookupMethod, methodNames } from './builtin.js';
import { attrHint } from './spell.js';
import { typeName } from './type-name.js';
import { StarlarkError, StarlarkObject, type Thread, type Value } from './value.js';

/** `x.name`, or undefined if there is no such field or method. Methods come back bound. */
export function tryGetAttr(x: Value, name: string, thread: Thread | null): Value | undefined {
  if (x instanceof StarlarkObject) {
    const v = x.getAttr(name, thread);
    if (v !== undefined) return v;
  }
  const t = typeName(x);
  const impl = lookupMethod(t, name);
  return impl === undefined ? undefined : new Builtin(name, impl, x);
}

/** `x.name`, failing with starlark-go's wording and a spelling hint. */
export function getAttr(x: Value, name: string, thread: Thread | null): Value {
  const v = tryGetAttr(x, name, thread);
  if (v !== undefined) return v;
  throw new StarlarkError(
    `${typeName(x)} has no .${name} field or method${attrHint(name, attrNames(x))}`,
  );
}

/** Names for `dir(x)`, sorted. */
export function attrNames(x: Value): string[] {
  const names = methodNames(typeName(x));
  if (x instanceof StarlarkObject) names.push(...x.attrNames());
  return [...new Set(names)].sort();
}

export function hasAttr(x: Value, name: string, thread: Thread | null): boolean {
  return tryGetAttr(x, name, thread) !== undefined;
}

/** `x.name = v`. */
export function setAttr(x: Value, name: string, v: Value): void {
  if (x instanceof StarlarkObject) {
    x.setAttr(name, v);
    return;
  }
  throw new StarlarkError(`can't assign to .${name} field of ${typeName(x)}`);
}

/**
 * Calls method `name` of `recv` without allocating a bound method object: the evaluator's
 * fast path for `x.f(...)`. Returns undefined when `recv` has no native method `name`
 * (the caller then falls back to `getAttr` + call).
 */
export function callMethod(
  thread: Thread,
  recv: Value,
  name: string,
  args: Value[],
  kwargs: Array<[string, Value]> | null,
): Value | undefined {
  if (recv instanceof StarlarkObject && recv.getAttr(name, thread) !== undefined) return undefined;
  const impl = lookupMethod(typeName(recv), name);
  return impl === undefined ? undefined : impl(thread, args, kwargs, recv);
}
