import { StarlarkObject, type Value } from './value.js';

/** Deep-freezes a value; primitives are already immutable. */
export function freezeValue(v: Value): void {
  if (v instanceof StarlarkObject && !v.frozen) v.freeze();
}
