/**
 * Expressions as generated JavaScript. Each `genExpr` call appends the statements computing
 * the expression and returns an atom (a local, temporary, constant or integer) holding its
 * value. Operands are evaluated in the closure compiler's order, and every operation that can
 * fail sets `f.pos` first (inside the runtime helper that takes the position) as the closures do.
 */
import { Bytes, SFloat, Tuple, type Value } from '../values/index.js';
import type * as A from '../syntax/ast.js';
import { genBinary } from './gen-binary.js';
import { genCall } from './gen-call.js';
import { literalStringKeys } from './dict-literal-keys.js';
import { genComprehension } from './gen-comp.js';
import { Emitter, num, unsupported } from './gen-emitter.js';
import { genMakeFunction } from './gen-function.js';

export function genIdent(em: Emitter, id: A.Ident): string {
  const b = id.binding;
  if (b === null) return unsupported('unresolved identifier');
  const i = num(b.index);
  switch (b.scope) {
    case 'local': {
      const v = `l${i}`;
      if (!em.isBound(b.index))
        em.emit(`if (${v} === undefined) unboundLocal(f, ${em.pos(id)}, ${em.k(id.name)});`);
      return v;
    }
    case 'free': {
      const t = em.temp();
      em.emit(`${t} = fr[${i}].v;`);
      em.emit(`if (${t} === undefined) unboundLocal(f, ${em.pos(id)}, ${em.k(id.name)});`);
      return t;
    }
    case 'global':
    case 'filelocal': {
      const t = em.temp();
      const fail = b.scope === 'global' ? 'unboundGlobal' : 'unboundLocal';
      em.emit(`${t} = G[${i}];`);
      em.emit(`if (${t} === undefined) ${fail}(f, ${em.pos(id)}, ${em.k(id.name)});`);
      return t;
    }
    case 'cell':
      return unsupported('cell');
    default: {
      const slot = em.c.mod.predeclaredSlot(id.name);
      if (slot !== undefined) return `PRE[${num(slot)}]`;
      const v = em.c.mod.lookup(id.name);
      if (v !== undefined) return em.k(v);
      em.emit(`undefinedName(${em.k(id.name)});`);
      return 'None';
    }
  }
}

function literal(em: Emitter, l: A.Literal): string {
  const lv = l.value;
  switch (lv.type) {
    case 'float':
      return em.k(new SFloat(lv.v));
    case 'bytes':
      return em.k(new Bytes(lv.v));
    case 'int':
      return typeof lv.v === 'number' && Number.isSafeInteger(lv.v) && lv.v >= 0
        ? num(lv.v)
        : em.k(lv.v);
    default:
      return em.k(lv.v);
  }
}

/** Atoms of `xs`, evaluated in order. */
export function genElems(em: Emitter, xs: readonly A.Expr[]): string[] {
  return xs.map((x) => genExpr(em, x));
}

function dictLiteral(em: Emitter, e: A.DictExpr): string {
  const d = em.temp();
  const keys = literalStringKeys(e);
  if (keys !== null) {
    const vals = e.entries.map((en) => genExpr(em, en.value));
    em.emit(`${d} = Dict.literal([${keys.map((k) => em.k(k)).join(', ')}], [${vals.join(', ')}]);`);
    return d;
  }
  em.emit(`${d} = new Dict();`);
  for (const en of e.entries) {
    const k = genExpr(em, en.key);
    const v = genExpr(em, en.value);
    em.emit(`dictPut(f, ${em.pos(en.key)}, ${d}, ${k}, ${v});`);
  }
  return d;
}

function unaryExpr(em: Emitter, e: A.UnaryExpr): string {
  const x = genExpr(em, e.x);
  const t = em.temp();
  switch (e.op) {
    case 'not':
      em.emit(`${t} = !${em.truthy(x)};`);
      em.markBool(t);
      break;
    case '-':
      em.emit(
        `${t} = typeof ${x} === 'number' && ${x} !== 0 ? -${x} : neg(f, ${em.pos(e)}, ${x});`,
      );
      break;
    case '+':
    case '~':
      em.emit(`${t} = unop(f, ${em.pos(e)}, ${em.k(e.op)}, ${x});`);
      break;
    default:
      return unsupported('unary operator');
  }
  return t;
}

function condExpr(em: Emitter, e: A.CondExpr): string {
  const c = genExpr(em, e.cond);
  const t = em.temp();
  em.emit(`if (${em.truthy(c)}) {`);
  em.branch(() => em.emit(`${t} = ${genExpr(em, e.then)};`));
  em.emit('} else {');
  em.branch(() => em.emit(`${t} = ${genExpr(em, e.else)};`));
  em.emit('}');
  return t;
}

function sliceExpr(em: Emitter, e: A.SliceExpr): string {
  const a = genExpr(em, e.x);
  const lo = e.lo === null ? 'None' : genExpr(em, e.lo);
  const hi = e.hi === null ? 'None' : genExpr(em, e.hi);
  const st = e.step === null ? 'None' : genExpr(em, e.step);
  const t = em.temp();
  em.emit(`${t} = slc(f, ${em.pos(e)}, ${a}, ${lo}, ${hi}, ${st});`);
  return t;
}

/**
 * `a[i]`: a non-negative index within a list, tuple or string, or a string key present in a
 * dict, inline (as `idx` has them); any other case through `idx`, which also sets the position
 * for its errors.
 */
function indexExpr(em: Emitter, e: A.IndexExpr): string {
  const a = em.obj(genExpr(em, e.x));
  const i = genExpr(em, e.index);
  const t = em.temp();
  const slow = `idx(f, ${em.pos(e)}, ${a}, ${i})`;
  const seq = `(${a} instanceof Tuple || ${a} instanceof List) && ${i} < ${a}.items.length ? ${a}.items[${i}]`;
  const dict = `${a} instanceof Dict && (${t} = ${a}.find(${i})) >= 0 ? ${a}.vals[${t}]`;
  if (/^[0-9]/.test(i)) {
    // `t[0]`: a literal index is a tuple's or list's field, most often.
    em.emit(`${t} = ${seq} : ${slow};`);
    return t;
  }
  if (typeof em.constValue(i) === 'string') {
    // `d["name"]`: a record's field.
    em.emit(`${t} = ${dict} : ${slow};`);
    return t;
  }
  const str = `typeof ${a} === 'string' ? ${i} < ${a}.length ? ${a}[${i}] : ${slow}`;
  em.emit(
    `${t} = typeof ${i} === 'string' ? ${dict} : ${slow} : typeof ${i} !== 'number' || ${i} < 0 ? ${slow} : ${str} : ${seq} : ${slow};`,
  );
  return t;
}

export function genExpr(em: Emitter, e: A.Expr): string {
  switch (e.kind) {
    case 'Ident':
      return genIdent(em, e);
    case 'Literal':
      return literal(em, e);
    case 'Paren':
      return genExpr(em, e.x);
    case 'List': {
      const xs = genElems(em, e.elems);
      const t = em.temp();
      em.emit(`${t} = new List([${xs.join(', ')}]);`);
      return t;
    }
    case 'Tuple': {
      if (e.elems.length === 0) return em.k(Tuple.empty as Value);
      const xs = genElems(em, e.elems);
      const t = em.temp();
      em.emit(`${t} = new Tuple([${xs.join(', ')}]);`);
      return t;
    }
    case 'Dict':
      return dictLiteral(em, e);
    case 'Comp':
      return genComprehension(em, e);
    case 'Unary':
      return unaryExpr(em, e);
    case 'Binary':
      return genBinary(em, e);
    case 'Cond':
      return condExpr(em, e);
    case 'Dot': {
      const x = genExpr(em, e.x);
      const t = em.temp();
      em.emit(`${t} = attr(f, ${em.pos(e)}, ${x}, ${em.k(e.name)});`);
      return t;
    }
    case 'Index':
      return indexExpr(em, e);
    case 'Slice':
      return sliceExpr(em, e);
    case 'Call':
      return genCall(em, e);
    case 'Lambda':
      return genMakeFunction(em, 'lambda', e.params, e.scope, e, { kind: 'expr', body: e.body });
  }
}
