import { List, Range, Tuple, iterate, type Value } from '../values/index.js';
import { BREAK, NEXT, RETURN, type Frame } from './function.js';

/**
 * Runs `body` for each element of `x`, charging one step per iteration. Lists, tuples and
 * ranges are walked directly; a list being iterated refuses mutation, as in starlark-go.
 * Returns RETURN if the body returned, else NEXT.
 */
export function forEachValue(f: Frame, x: Value, body: (f: Frame, v: Value) => number): number {
  const th = f.thread;
  if (x instanceof Range) {
    const n = x.len;
    const start = x.start;
    const step = x.step;
    for (let i = 0; i < n; i++) {
      if (++th.stepCount >= th.stepMark) th.checkpoint();
      const r = body(f, start + i * step);
      if (r !== NEXT && r !== 2) return r === BREAK ? NEXT : RETURN;
    }
    return NEXT;
  }
  if (x instanceof List || x instanceof Tuple) {
    const guard = x instanceof List && !x.frozen ? x : null;
    const items = x.items;
    if (guard !== null) guard.itercount++;
    try {
      for (let i = 0; i < items.length; i++) {
        if (++th.stepCount >= th.stepMark) th.checkpoint();
        const r = body(f, items[i] as Value);
        if (r !== NEXT && r !== 2) return r === BREAK ? NEXT : RETURN;
      }
    } finally {
      if (guard !== null) guard.itercount--;
    }
    return NEXT;
  }
  const it = iterate(x);
  try {
    for (let v = it.next(); v !== undefined; v = it.next()) {
      if (++th.stepCount >= th.stepMark) th.checkpoint();
      const r = body(f, v);
      if (r !== NEXT && r !== 2) return r === BREAK ? NEXT : RETURN;
    }
  } finally {
    it.done();
  }
  return NEXT;
}
