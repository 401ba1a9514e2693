import { List, Range, Tuple, iterate, type Value } from '../values/index.js';
import type * as A from '../syntax/ast.js';
import { BREAK, CONTINUE, NEXT, RETURN, type Exec, type Frame } from './function.js';

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
      if (r !== NEXT && r !== CONTINUE) return r === BREAK ? NEXT : RETURN;
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
        if (r !== NEXT && r !== CONTINUE) return r === BREAK ? NEXT : RETURN;
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
      if (r !== NEXT && r !== CONTINUE) return r === BREAK ? NEXT : RETURN;
    }
  } finally {
    it.done();
  }
  return NEXT;
}

/** The slot of a plain local loop variable (`for i in ...`), or -1 for any other target. */
export function localSlot(target: A.Expr): number {
  while (target.kind === 'Paren') target = target.x;
  return target.kind === 'Ident' && target.binding?.scope === 'local' ? target.binding.index : -1;
}

/**
 * `forEachValue` for a loop whose variable is a plain local: the element is stored straight
 * into its slot and the body runs without a per-element callback in between.
 */
export function forEachLocal(f: Frame, x: Value, slot: number, body: Exec): number {
  const th = f.thread;
  const locals = f.locals;
  if (x instanceof Range) {
    const n = x.len;
    const start = x.start;
    const step = x.step;
    for (let i = 0; i < n; i++) {
      if (++th.stepCount >= th.stepMark) th.checkpoint();
      locals[slot] = start + i * step;
      const r = body(f);
      if (r !== NEXT && r !== CONTINUE) return r === BREAK ? NEXT : RETURN;
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
        locals[slot] = items[i] as Value;
        const r = body(f);
        if (r !== NEXT && r !== CONTINUE) return r === BREAK ? NEXT : RETURN;
      }
    } finally {
      if (guard !== null) guard.itercount--;
    }
    return NEXT;
  }
  return forEachValue(f, x, (fr, v) => {
    fr.locals[slot] = v;
    return body(fr);
  });
}
