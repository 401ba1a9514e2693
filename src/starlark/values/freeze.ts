import { StarlarkObject, type Value } from './value.js';

/** Objects waiting to be frozen while a freeze is in progress (null when idle). */
let pending: StarlarkObject[] | null = null;

/**
 * Deep-freezes a value; primitives are already immutable. Containers call this for their
 * elements, which are queued rather than recursed into, so deeply nested values cannot
 * exhaust the JS stack.
 */
export function freezeValue(v: Value): void {
  if (!(v instanceof StarlarkObject) || v.frozen) return;
  if (pending !== null) {
    pending.push(v);
    return;
  }
  pending = [v];
  try {
    for (let o = pending.pop(); o !== undefined; o = pending.pop()) if (!o.frozen) o.freeze();
  } finally {
    pending = null;
  }
}
