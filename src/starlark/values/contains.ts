import { Bytes, indexOfBytes } from './bytes.js';
import { refuseSecret } from './secret.js';
import { typeName } from './type-name.js';
import { StarlarkError, StarlarkObject, type Value } from './value.js';

/** Starlark `x in container`. */
export function contains(container: Value, x: Value): boolean {
  if (typeof container === 'string') {
    if (typeof x !== 'string') {
      refuseSecret(x, 'in');
      throw new StarlarkError(`'in <string>' requires string as left operand, not ${typeName(x)}`);
    }
    return container.includes(x);
  }
  if (container instanceof Bytes) {
    if (typeof x === 'number' || typeof x === 'bigint') {
      if (x < 0 || x > 255) throw new StarlarkError(`int in bytes: ${x} out of range`);
      return container.data.includes(Number(x));
    }
    if (x instanceof Bytes) return indexOfBytes(container.data, x.data, 0) >= 0;
    throw new StarlarkError(`'in bytes' requires bytes or int as left operand, not ${typeName(x)}`);
  }
  if (container instanceof StarlarkObject) {
    const r = container.contains(x);
    if (r !== undefined) return r;
  }
  throw new StarlarkError(`unknown binary op: ${typeName(x)} in ${typeName(container)}`);
}
