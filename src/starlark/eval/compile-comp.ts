import { Dict, List, Range, truth, type Value } from '../values/index.js';
import type * as A from '../syntax/ast.js';
import { compileAssign } from './compile-assign.js';
import { compileExpr, type Eval } from './compile-expr.js';
import { encodePos, type FnCtx } from './context.js';
import { Cell, NEXT, type Frame } from './function.js';
import { forEachLocal, forEachValue, localSlot } from './loop.js';

type Acc = Value[] | Dict;
type Step = (f: Frame, acc: Acc) => void;

/** The commonest clause, `for i in range(...)` over a local, as one tight loop. */
function rangeLoop(f: Frame, x: Range, slot: number, next: Step, acc: Acc): void {
  const th = f.thread;
  const locals = f.locals;
  const n = x.len;
  const start = x.start;
  const step = x.step;
  for (let i = 0; i < n; i++) {
    if (++th.stepCount >= th.stepMark) th.checkpoint();
    locals[slot] = start + i * step;
    next(f, acc);
  }
}

/** List and dict comprehensions, compiled to nested loops that append to one accumulator. */
export function compileComprehension(c: FnCtx, e: A.Comprehension): Eval {
  let k: Step;
  if (e.body !== null) {
    const b = compileExpr(c, e.body);
    k = (f, acc) => {
      (acc as Value[]).push(b(f));
    };
  } else {
    const entry = e.dictBody as A.DictEntry;
    const key = compileExpr(c, entry.key);
    const val = compileExpr(c, entry.value);
    const p = encodePos(entry.key);
    k = (f, acc) => {
      const kv = key(f);
      const vv = val(f);
      f.pos = p;
      (acc as Dict).set(kv, vv);
    };
  }
  for (let i = e.clauses.length - 1; i >= 0; i--) {
    const cl = e.clauses[i] as A.ForClause | A.IfClause;
    const next = k;
    if (cl.kind === 'if') {
      const cond = compileExpr(c, cl.cond);
      k = (f, acc) => {
        const v = cond(f);
        if (typeof v === 'boolean' ? v : truth(v)) next(f, acc);
      };
    } else {
      const iter = compileExpr(c, cl.iter);
      const p = encodePos(cl);
      const slot = localSlot(cl.vars);
      if (slot >= 0) {
        k = (f, acc) => {
          const x = iter(f);
          f.pos = p;
          if (x instanceof Range) rangeLoop(f, x, slot, next, acc);
          else
            forEachLocal(f, x, slot, (fr) => {
              next(fr, acc);
              return NEXT;
            });
        };
        continue;
      }
      const assign = compileAssign(c, cl.vars);
      k = (f, acc) => {
        const x = iter(f);
        f.pos = p;
        forEachValue(f, x, (fr, v) => {
          assign(fr, v);
          next(fr, acc);
          return NEXT;
        });
      };
    }
  }
  const cells = e.bindings.filter((b) => b.scope === 'cell').map((b) => b.index);
  const run = k;
  if (e.body !== null) {
    return (f) => {
      for (const i of cells) f.locals[i] = new Cell(undefined) as unknown as Value;
      const acc: Value[] = [];
      run(f, acc);
      f.thread.alloc(acc.length);
      return new List(acc);
    };
  }
  return (f) => {
    for (const i of cells) f.locals[i] = new Cell(undefined) as unknown as Value;
    const d = new Dict();
    run(f, d);
    return d;
  };
}
