import { SecretReadError, StarlarkError } from '../values/index.js';

/** The error `e` with its message prefixed by the method name, if it is a StarlarkError. */
export function prefixed(name: string, e: unknown): unknown {
  if (isPlain(e) && !e.message.startsWith(name + ': '))
    return new StarlarkError(`${name}: ${e.message}`);
  return e;
}

/** Runs `f`, prefixing a StarlarkError's message with the method name (starlark-go's nameErr). */
export function named<T>(name: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (isPlain(e) && !e.message.startsWith(name + ': '))
      throw new StarlarkError(`${name}: ${e.message}`);
    throw e;
  }
}

/** A StarlarkError to rename; a secret's read error keeps its class, which the host tells apart. */
export function isPlain(e: unknown): e is StarlarkError {
  return e instanceof StarlarkError && !(e instanceof SecretReadError);
}
