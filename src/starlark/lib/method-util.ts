import { StarlarkError } from '../values/index.js';

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
