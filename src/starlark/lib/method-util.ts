import { StarlarkError } from '../values/index.js';

/** The error `e` with its message prefixed by the method name, if it is a StarlarkError. */
export function prefixed(name: string, e: unknown): unknown {
  if (e instanceof StarlarkError && !e.message.startsWith(name + ': '))
    return new StarlarkError(`${name}: ${e.message}`);
  return e;
}

/** Runs `f`, prefixing a StarlarkError's message with the method name (starlark-go's nameErr). */
export function named<T>(name: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof StarlarkError && !e.message.startsWith(name + ': '))
      throw new StarlarkError(`${name}: ${e.message}`);
    throw e;
  }
}
