/**
 * Calls as generated JavaScript. A positional call whose callee turns out to be a generated
 * function of matching arity calls its direct entry with the arguments as JS arguments: no
 * argument array, no locals array. Anything else goes through the closure compiler's call
 * helpers, so binding, builtin error tagging and method caches are shared.
 */
import { Builtin } from '../values/index.js';
import type * as A from '../syntax/ast.js';
import { MethodSite } from './compile-call.js';
import { encodePos } from './context.js';
import { genElems, genExpr, genIdent } from './gen-expr.js';
import { num, type Emitter } from './gen-emitter.js';
import { genBuiltinFast, genMethodFast } from './gen-fast-call.js';

/** `fn(a, b)`: the callee, then the arguments, then the call (as `plainCall`). */
function plainCall(em: Emitter, e: A.CallExpr): string {
  const fnx = em.obj(e.fn.kind === 'Ident' ? genIdent(em, e.fn) : genExpr(em, e.fn));
  const args = genElems(
    em,
    e.args.map((a) => a.value),
  );
  const t = em.temp();
  const p = em.pos(e);
  const list = `[${args.join(', ')}]`;
  em.emit(`f.pos = ${p};`);
  if (e.fn.kind === 'Ident' && e.fn.binding?.scope === 'universal' && fnx.startsWith('k')) {
    // A universal value (a constant): never a Starlark function, most often a builtin.
    const fn = em.c.mod.lookup(e.fn.name);
    if (genBuiltinFast(em, e.fn.name, fn, fnx, args, t)) return t;
    const builtin = fn instanceof Builtin;
    em.emit(`${t} = ${builtin ? 'callBuiltin' : 'callPositional'}(f, ${fnx}, ${list});`);
    return t;
  }
  const direct = [fnx, ...args].join(', ');
  em.emit(
    `${t} = ${fnx} instanceof StarFunction && ${fnx}.code.direct === ${num(args.length)} ? ${fnx}.code.gen(th, ${direct}) : callPositional(f, ${fnx}, ${list});`,
  );
  return t;
}

/** `x.name(a, b)` through the closures' per-site method cache. */
function methodCall(em: Emitter, e: A.CallExpr, dot: A.DotExpr): string {
  const r = genExpr(em, dot.x);
  const site = em.k(new MethodSite(dot.name, encodePos(e), encodePos(dot)));
  const args = genElems(
    em,
    e.args.map((a) => a.value),
  );
  const t = em.temp();
  genMethodFast(em, dot.name, r, args, t, em.pos(e), site);
  return t;
}

function generalCall(em: Emitter, e: A.CallExpr): string {
  const fnx = genExpr(em, e.fn);
  const args = em.temp();
  const kw = em.temp();
  em.emit(`${args} = [];`);
  em.emit(`${kw} = null;`);
  for (const a of e.args) {
    const v = genExpr(em, a.value);
    switch (a.kind) {
      case 'pos':
        em.emit(`${args}.push(${v});`);
        break;
      case 'named':
        em.emit(`if (${kw} === null) ${kw} = [];`);
        em.emit(`${kw}.push([${em.k(a.name)}, ${v}]);`);
        break;
      case 'star':
        em.emit(`spreadArgs(f, ${em.pos(a)}, ${args}, ${v});`);
        break;
      case 'starstar':
        em.emit(`${kw} = spreadKwargs(f, ${em.pos(a)}, ${kw}, ${v});`);
        break;
    }
  }
  const t = em.temp();
  em.emit(`f.pos = ${em.pos(e)};`);
  em.emit(`${t} = callValue(f, ${fnx}, ${args}, ${kw});`);
  return t;
}

export function genCall(em: Emitter, e: A.CallExpr): string {
  if (e.args.every((a) => a.kind === 'pos')) {
    if (e.fn.kind !== 'Dot') return plainCall(em, e);
    return methodCall(em, e, e.fn);
  }
  return generalCall(em, e);
}
