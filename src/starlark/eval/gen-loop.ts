/**
 * Loops and assignment targets as generated JavaScript, shared by `for` statements and
 * comprehension clauses. One JS loop serves ranges, lists and tuples (walked directly) and
 * any other iterable (through its iterator), so the body is emitted once; a list being walked
 * refuses mutation, and one step is charged per iteration, as in `loop.ts`.
 */
import type * as A from '../syntax/ast.js';
import { genExpr } from './gen-expr.js';
import { isStandardBuiltin } from './gen-fast-call.js';
import { num, unsupported, type Emitter } from './gen-emitter.js';

/** Emits the statements storing atom `v` into `lhs` (as `compileAssign`). */
export function genAssign(em: Emitter, lhs: A.Expr, v: string): void {
  switch (lhs.kind) {
    case 'Ident': {
      const b = lhs.binding;
      if (b === null) return unsupported('unresolved identifier');
      const i = num(b.index);
      switch (b.scope) {
        case 'local':
          em.emit(`l${i} = ${v};`);
          em.markBound(b.index);
          return;
        case 'free':
          em.emit(`fr[${i}].v = ${v};`);
          return;
        case 'global':
        case 'filelocal':
          em.emit(`G[${i}] = ${v};`);
          return;
        default:
          return unsupported('assignment target');
      }
    }
    case 'Paren':
      return genAssign(em, lhs.x, v);
    case 'Tuple':
    case 'List': {
      const items = em.temp();
      const n = lhs.elems.length;
      em.emit(`${items} = unpackAt(f, ${em.pos(lhs)}, ${v}, ${num(n)});`);
      lhs.elems.forEach((sub, i) => {
        const x = em.temp();
        em.emit(`${x} = ${items}[${num(i)}];`);
        genAssign(em, sub, x);
      });
      return;
    }
    case 'Index': {
      const a = em.obj(genExpr(em, lhs.x));
      const k = genExpr(em, lhs.index);
      // `a[i] = v` on a list, in range, neither frozen nor being iterated: setIndex's own case
      // that cannot fail, written in place.
      const kNum = /^[0-9]/.test(k) ? '' : `typeof ${k} === 'number' && ${k} >= 0 && `;
      em.emit(
        `if (${a} instanceof List && ${kNum}${k} < ${a}.items.length && !${a}.frozen && ${a}.itercount === 0) ${a}.items[${k}] = ${v}; else setIdx(f, ${em.pos(lhs)}, ${a}, ${k}, ${v});`,
      );
      return;
    }
    case 'Dot': {
      const a = genExpr(em, lhs.x);
      em.emit(`setAttrAt(f, ${em.pos(lhs)}, ${a}, ${em.k(lhs.name)}, ${v});`);
      return;
    }
    default:
      return unsupported('assignment target');
  }
}

/**
 * True when `iter` is a positional call of the standard `range`: its value is then a Range
 * (or the call failed), so `genLoop` needs no other kind of loop.
 */
export function isRangeCall(em: Emitter, iter: A.Expr): boolean {
  if (iter.kind !== 'Call' || iter.fn.kind !== 'Ident' || iter.fn.name !== 'range') return false;
  if (iter.fn.binding?.scope !== 'universal' || !iter.args.every((a) => a.kind === 'pos'))
    return false;
  return isStandardBuiltin('range', em.c.mod.lookup('range'));
}

/**
 * `for vars in iter: body` once `iter` is evaluated into atom `x`; `body` emits the loop body,
 * in which Starlark's `break` and `continue` are JS's. `ranged` (see `isRangeCall`) emits a
 * plain counting loop: one test per iteration instead of three, and no iterator to close.
 */
export function genLoop(
  em: Emitter,
  atom: string,
  p: A.Pos,
  vars: A.Expr,
  body: () => void,
  ranged = false,
): void {
  const x = em.obj(atom);
  const t = (): string => em.temp();
  if (ranged) {
    const [n, st, sp, i, v] = [t(), t(), t(), t(), t()];
    em.emit(`f.pos = ${em.pos(p)};`);
    em.emit(`${n} = ${x}.len; ${st} = ${x}.start; ${sp} = ${x}.step;`);
    em.emit(`for (${i} = 0; ${i} < ${n}; ${i}++) {`);
    em.emit(`${v} = ${st} + ${i} * ${sp};`);
    em.emit('step(th);');
    em.branch(() => {
      genAssign(em, vars, v);
      body();
    });
    em.emit('}');
    return;
  }
  const [xs, n, st, sp, it, g, i, v] = [t(), t(), t(), t(), t(), t(), t(), t()];
  em.emit(`f.pos = ${em.pos(p)};`);
  em.emit(`${xs} = null; ${it} = null; ${g} = null;`);
  em.emit(`if (${x} instanceof Range) { ${n} = ${x}.len; ${st} = ${x}.start; ${sp} = ${x}.step; }`);
  em.emit(`else if (${x} instanceof List || ${x} instanceof Tuple) {`);
  em.emit(`${xs} = ${x}.items;`);
  em.emit(`if (${x} instanceof List && !${x}.frozen) { ${g} = ${x}; ${g}.itercount++; }`);
  em.emit(`} else ${it} = iterate(${x});`);
  em.emit(`try { for (${i} = 0; ; ${i}++) {`);
  em.emit(`if (${xs} !== null) { if (${i} >= ${xs}.length) break; ${v} = ${xs}[${i}]; }`);
  em.emit(`else if (${it} === null) { if (${i} >= ${n}) break; ${v} = ${st} + ${i} * ${sp}; }`);
  em.emit(`else { ${v} = ${it}.next(); if (${v} === undefined) break; }`);
  em.emit('step(th);');
  em.branch(() => {
    genAssign(em, vars, v);
    body();
  });
  em.emit(`} } finally { if (${g} !== null) ${g}.itercount--; if (${it} !== null) ${it}.done(); }`);
}
