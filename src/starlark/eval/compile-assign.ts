import {
  List,
  StarlarkError,
  Tuple,
  iterate,
  setAttr,
  setIndex,
  refuseSecret,
  typeName,
  type Value,
} from '../values/index.js';
import type * as A from '../syntax/ast.js';
import { compileExpr } from './compile-expr.js';
import { encodePos, type FnCtx } from './context.js';
import type { Cell, Frame } from './function.js';

export type Assign = (f: Frame, v: Value) => void;

/** Elements of `v` for `a, b = v`, checking the count. */
export function unpack(v: Value, n: number): readonly Value[] {
  let items: readonly Value[];
  if (v instanceof Tuple || v instanceof List) items = v.items;
  else {
    let it;
    refuseSecret(v, 'sequence assignment');
    try {
      it = iterate(v);
    } catch {
      throw new StarlarkError(`got ${typeName(v)} in sequence assignment`);
    }
    const out: Value[] = [];
    try {
      for (let x = it.next(); x !== undefined && out.length <= n; x = it.next()) out.push(x);
    } finally {
      it.done();
    }
    items = out;
  }
  if (items.length > n)
    throw new StarlarkError(`too many values to unpack (got ${items.length}, want ${n})`);
  if (items.length < n)
    throw new StarlarkError(`too few values to unpack (got ${items.length}, want ${n})`);
  return items;
}

export function compileIdentAssign(c: FnCtx, id: A.Ident): Assign {
  const b = id.binding;
  if (b === null) throw new Error(`unresolved identifier ${id.name}`);
  const i = b.index;
  switch (b.scope) {
    case 'local':
      return (f, v) => {
        f.locals[i] = v;
      };
    case 'cell':
      return (f, v) => {
        (f.locals[i] as unknown as Cell).v = v;
      };
    case 'free':
      return (f, v) => {
        (f.free[i] as Cell).v = v;
      };
    case 'global':
    case 'filelocal': {
      const g = c.mod.globals;
      return (_f, v) => {
        g[i] = v;
      };
    }
    default:
      throw new Error(`cannot assign to ${b.scope} ${id.name}`);
  }
}

export function compileAssign(c: FnCtx, lhs: A.Expr): Assign {
  switch (lhs.kind) {
    case 'Ident':
      return compileIdentAssign(c, lhs);
    case 'Paren':
      return compileAssign(c, lhs.x);
    case 'Tuple':
    case 'List': {
      const subs = lhs.elems.map((e) => compileAssign(c, e));
      const n = subs.length;
      const p = encodePos(lhs);
      return (f, v) => {
        f.pos = p;
        const items = unpack(v, n);
        for (let i = 0; i < n; i++) (subs[i] as Assign)(f, items[i] as Value);
      };
    }
    case 'Index': {
      const x = compileExpr(c, lhs.x);
      const k = compileExpr(c, lhs.index);
      const p = encodePos(lhs);
      return (f, v) => {
        const a = x(f);
        const key = k(f);
        f.pos = p;
        setIndex(a, key, v);
      };
    }
    case 'Dot': {
      const x = compileExpr(c, lhs.x);
      const p = encodePos(lhs);
      const name = lhs.name;
      return (f, v) => {
        const a = x(f);
        f.pos = p;
        setAttr(a, name, v);
      };
    }
    default:
      throw new Error(`cannot assign to ${lhs.kind}`);
  }
}
