import { HOLE } from './hash-table.js';
import { StarSet } from './set.js';
import { None } from './value.js';

/** Set algebra producing new sets; insertion order follows the left operand, then the right. */

export function setUnion(x: StarSet, y: StarSet): StarSet {
  const out = new StarSet();
  for (const k of x.keys) if (k !== HOLE) out.put(k, None);
  for (const k of y.keys) if (k !== HOLE) out.put(k, None);
  return out;
}

export function setIntersection(x: StarSet, y: StarSet): StarSet {
  const out = new StarSet();
  for (const k of x.keys) if (k !== HOLE && y.has(k)) out.put(k, None);
  return out;
}

export function setDifference(x: StarSet, y: StarSet): StarSet {
  const out = new StarSet();
  for (const k of x.keys) if (k !== HOLE && !y.has(k)) out.put(k, None);
  return out;
}

export function setSymmetricDifference(x: StarSet, y: StarSet): StarSet {
  const out = new StarSet();
  for (const k of x.keys) if (k !== HOLE && !y.has(k)) out.put(k, None);
  for (const k of y.keys) if (k !== HOLE && !x.has(k)) out.put(k, None);
  return out;
}
