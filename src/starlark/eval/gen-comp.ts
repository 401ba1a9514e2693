/**
 * List and dict comprehensions as generated JavaScript: nested loops appending to one
 * accumulator, as `compile-comp.ts` runs them. Comprehension variables are slots of the
 * enclosing function, so they are JS locals like any other.
 */
import type * as A from '../syntax/ast.js';
import { genExpr } from './gen-expr.js';
import { unsupported, type Emitter } from './gen-emitter.js';
import { genLoop, isRangeCall } from './gen-loop.js';

export function genComprehension(em: Emitter, e: A.Comprehension): string {
  if (e.bindings.some((b) => b.scope === 'cell'))
    return unsupported('captured comprehension variable');
  const acc = em.temp();
  em.emit(e.body !== null ? `${acc} = [];` : `${acc} = new Dict();`);
  const clause = (i: number): void => {
    const cl = e.clauses[i];
    if (cl === undefined) {
      if (e.body !== null) {
        const v = genExpr(em, e.body);
        em.emit(`${acc}.push(${v});`);
      } else {
        const entry = e.dictBody as A.DictEntry;
        const k = genExpr(em, entry.key);
        const v = genExpr(em, entry.value);
        em.emit(`compPut(f, ${em.pos(entry.key)}, ${acc}, ${k}, ${v});`);
      }
      return;
    }
    if (cl.kind === 'if') {
      const c = genExpr(em, cl.cond);
      em.emit(`if (${em.truthy(c)}) {`);
      em.branch(() => clause(i + 1));
      em.emit('}');
      return;
    }
    const x = genExpr(em, cl.iter);
    genLoop(em, x, cl, cl.vars, () => clause(i + 1), isRangeCall(em, cl.iter));
  };
  clause(0);
  if (e.body === null) return acc;
  const t = em.temp();
  em.emit(`th.alloc(${acc}.length);`);
  em.emit(`${t} = new List(${acc});`);
  return t;
}
