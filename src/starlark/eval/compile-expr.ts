import {
  Bytes,
  Dict,
  List,
  None,
  SFloat,
  StarlarkError,
  Tuple,
  getAttr,
  index,
  repr,
  slice,
  truth,
  unary,
  type Value,
} from '../values/index.js';
import type * as A from '../syntax/ast.js';
import { binaryExpr } from './compile-binary.js';
import { callExpr } from './compile-call.js';
import { compileComprehension } from './compile-comp.js';
import { encodePos, type FnCtx } from './context.js';
import { literalStringKeys } from './dict-literal-keys.js';
import { makeFunction } from './compile-function.js';
import { Cell, type Frame } from './function.js';

export type Eval = (f: Frame) => Value;

function unbound(kind: string, name: string): StarlarkError {
  return new StarlarkError(`${kind} variable ${name} referenced before assignment`);
}

export function compileIdent(c: FnCtx, id: A.Ident): Eval {
  const b = id.binding;
  const name = id.name;
  if (b === null) throw new Error(`unresolved identifier ${name}`);
  const i = b.index;
  const p = encodePos(id);
  const fail = (f: Frame, kind: string): never => {
    f.pos = p;
    throw unbound(kind, name);
  };
  switch (b.scope) {
    case 'local':
      return (f) => {
        const v = f.locals[i];
        if (v !== undefined) return v;
        return fail(f, 'local');
      };
    case 'cell':
      return (f) => {
        const v = (f.locals[i] as unknown as Cell).v;
        if (v !== undefined) return v;
        return fail(f, 'local');
      };
    case 'free':
      return (f) => {
        const v = (f.free[i] as Cell).v;
        if (v !== undefined) return v;
        return fail(f, 'local');
      };
    case 'global':
    case 'filelocal': {
      const g = c.mod.globals;
      const kind = b.scope === 'global' ? 'global' : 'local';
      return (f) => {
        const v = g[i];
        if (v !== undefined) return v;
        return fail(f, kind);
      };
    }
    default: {
      const slot = c.mod.predeclaredSlot(name);
      if (slot !== undefined) {
        const pre = c.mod.predeclared;
        return () => pre[slot] as Value;
      }
      const v = c.mod.lookup(name);
      if (v === undefined)
        return () => {
          throw new StarlarkError(`undefined: ${name}`);
        };
      return () => v;
    }
  }
}

function literal(l: A.Literal): Eval {
  const lv = l.value;
  let v: Value;
  switch (lv.type) {
    case 'float':
      v = new SFloat(lv.v);
      break;
    case 'bytes':
      v = new Bytes(lv.v);
      break;
    default:
      v = lv.v;
  }
  return () => v;
}

export function elems(c: FnCtx, xs: A.Expr[]): (f: Frame) => Value[] {
  const es = xs.map((x) => compileExpr(c, x));
  const n = es.length;
  if (n === 0) return () => [];
  if (n === 1) {
    const e0 = es[0] as Eval;
    return (f) => [e0(f)];
  }
  if (n === 2) {
    const e0 = es[0] as Eval;
    const e1 = es[1] as Eval;
    return (f) => [e0(f), e1(f)];
  }
  return (f) => {
    const out: Value[] = [];
    for (let i = 0; i < n; i++) out.push((es[i] as Eval)(f));
    return out;
  };
}

function dictLiteral(c: FnCtx, e: A.DictExpr): Eval {
  const keys = literalStringKeys(e);
  if (keys !== null) {
    const vals = e.entries.map((en) => compileExpr(c, en.value));
    // Arrays of the entries' own length: a literal's dict is built to size.
    return (f) =>
      Dict.literal(
        keys.slice(),
        vals.map((v) => v(f)),
      );
  }
  const ks = e.entries.map((en) => compileExpr(c, en.key));
  const vs = e.entries.map((en) => compileExpr(c, en.value));
  const ps = e.entries.map((en) => encodePos(en.key));
  const n = ks.length;
  return (f) => {
    const d = new Dict();
    for (let i = 0; i < n; i++) {
      const k = (ks[i] as Eval)(f);
      const v = (vs[i] as Eval)(f);
      f.pos = ps[i] as number;
      if (d.get(k) !== undefined) throw new StarlarkError(`duplicate key: ${repr(k)}`);
      d.set(k, v);
    }
    return d;
  };
}

function unaryExpr(c: FnCtx, e: A.UnaryExpr): Eval {
  const x = compileExpr(c, e.x);
  const p = encodePos(e);
  switch (e.op) {
    case 'not':
      return (f) => {
        const v = x(f);
        return typeof v === 'boolean' ? !v : !truth(v);
      };
    case '-':
      return (f) => {
        const v = x(f);
        if (typeof v === 'number' && v !== 0) return -v;
        f.pos = p;
        return unary('-', v);
      };
    default: {
      const op = e.op as '+' | '~';
      return (f) => {
        const v = x(f);
        f.pos = p;
        return unary(op, v);
      };
    }
  }
}

function indexExpr(c: FnCtx, e: A.IndexExpr): Eval {
  const x = compileExpr(c, e.x);
  const k = compileExpr(c, e.index);
  const p = encodePos(e);
  return (f) => indexAt(f, p, x(f), k(f));
}

/** `a[i]` (both backends): lists, tuples and strings by an int inline, else the generic index. */
export function indexAt(f: Frame, p: number, a: Value, i: Value): Value {
  if (typeof i === 'number' && (a instanceof List || a instanceof Tuple)) {
    const items = a.items;
    const j = i < 0 ? i + items.length : i;
    if (j >= 0 && j < items.length) return items[j] as Value;
  } else if (typeof i === 'number' && typeof a === 'string') {
    const j = i < 0 ? i + a.length : i;
    if (j >= 0 && j < a.length) return a[j]!;
  }
  f.pos = p;
  return index(a, i);
}

function sliceExpr(c: FnCtx, e: A.SliceExpr): Eval {
  const x = compileExpr(c, e.x);
  const none: Eval = () => None;
  const lo = e.lo === null ? none : compileExpr(c, e.lo);
  const hi = e.hi === null ? none : compileExpr(c, e.hi);
  const step = e.step === null ? none : compileExpr(c, e.step);
  const p = encodePos(e);
  return (f) => {
    const a = x(f);
    const l = lo(f);
    const h = hi(f);
    const s = step(f);
    f.pos = p;
    return slice(a, l, h, s);
  };
}

export function compileExpr(c: FnCtx, e: A.Expr): Eval {
  switch (e.kind) {
    case 'Ident':
      return compileIdent(c, e);
    case 'Literal':
      return literal(e);
    case 'Paren':
      return compileExpr(c, e.x);
    case 'List': {
      const mk = elems(c, e.elems);
      return (f) => new List(mk(f));
    }
    case 'Tuple': {
      if (e.elems.length === 0) return () => Tuple.empty;
      const mk = elems(c, e.elems);
      return (f) => new Tuple(mk(f));
    }
    case 'Dict':
      return dictLiteral(c, e);
    case 'Comp':
      return compileComprehension(c, e);
    case 'Unary':
      return unaryExpr(c, e);
    case 'Binary':
      return binaryExpr(c, e);
    case 'Cond': {
      const cond = compileExpr(c, e.cond);
      const a = compileExpr(c, e.then);
      const b = compileExpr(c, e.else);
      return (f) => {
        const v = cond(f);
        return (typeof v === 'boolean' ? v : truth(v)) ? a(f) : b(f);
      };
    }
    case 'Dot': {
      const x = compileExpr(c, e.x);
      const p = encodePos(e);
      const name = e.name;
      return (f) => {
        const v = x(f);
        f.pos = p;
        return getAttr(v, name, f.thread);
      };
    }
    case 'Index':
      return indexExpr(c, e);
    case 'Slice':
      return sliceExpr(c, e);
    case 'Call':
      return callExpr(c, e);
    case 'Lambda':
      return makeFunction(c, 'lambda', e.params, e.scope, e, { kind: 'expr', body: e.body });
  }
}
