import type { Value } from '../values/index.js';
import { universe } from '../lib/index.js';

let frozen = false;

/** The universal builtins (`None`, `len`, `dict`, ...) shared by every module; frozen once. */
export function defaultUniverse(): ReadonlyMap<string, Value> {
  if (!frozen) {
    for (const v of universe.values())
      if (typeof v === 'object' && v !== null && 'freeze' in v) v.freeze();
    frozen = true;
  }
  return universe;
}
