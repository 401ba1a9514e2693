import {
  Dict,
  StarlarkError,
  getAttr,
  index,
  inplaceBinary as libInplace,
  setAttr,
  setIndex,
  truth,
  type Thread,
  type Value,
} from '../values/index.js';
import type * as A from '../syntax/ast.js';
import { nearest } from '../syntax/spell.js';
import { compileAssign, compileIdentAssign } from './compile-assign.js';
import { compileExpr, compileIdent } from './compile-expr.js';
import { makeFunction } from './compile-function.js';
import { encodePos, type FnCtx } from './context.js';
import { BREAK, CONTINUE, NEXT, RETURN, type Exec } from './function.js';
import { forEachLocal, forEachValue, localSlot } from './loop.js';

const MAX = Number.MAX_SAFE_INTEGER;
const MIN = Number.MIN_SAFE_INTEGER;

/** `x op= y`; a dict `|=` updates the dict in place, like a list `+=`. */
export function inplaceBinary(op: string, x: Value, y: Value, thread: Thread): Value {
  if (op === '|' && x instanceof Dict && y instanceof Dict) {
    for (const [k, v] of y.entries()) x.set(k, v);
    return x;
  }
  return libInplace(op, x, y, thread);
}

/** `a + b` when both are small ints with a small sum, else undefined. */
export function addNumbers(a: Value, b: Value): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    if (r <= MAX && r >= MIN) return r;
  }
  return undefined;
}

export function compileBlock(c: FnCtx, stmts: A.Stmt[]): Exec {
  const ss = stmts.map((s) => compileStmt(c, s));
  const n = ss.length;
  if (n === 0) return () => NEXT;
  if (n === 1) return ss[0] as Exec;
  if (n === 2) {
    const s0 = ss[0] as Exec;
    const s1 = ss[1] as Exec;
    return (f) => {
      const r = s0(f);
      return r !== NEXT ? r : s1(f);
    };
  }
  return (f) => {
    for (let i = 0; i < n; i++) {
      const r = (ss[i] as Exec)(f);
      if (r !== NEXT) return r;
    }
    return NEXT;
  };
}

function augmented(c: FnCtx, s: A.AssignStmt): Exec {
  const op = s.op.slice(0, -1);
  const rhs = compileExpr(c, s.rhs);
  const p = encodePos(s);
  let lhs = s.lhs;
  while (lhs.kind === 'Paren') lhs = lhs.x;
  switch (lhs.kind) {
    case 'Ident': {
      const read = compileIdent(c, lhs);
      const write = compileIdentAssign(c, lhs);
      const slot = localSlot(lhs);
      if (op === '+' && slot >= 0) {
        // `n += k` on a local: the commonest accumulator shape, with no read/write closures.
        return (f) => {
          const a = f.locals[slot];
          if (a === undefined) return read(f) as never;
          const b = rhs(f);
          if (typeof a === 'number' && typeof b === 'number') {
            const r = a + b;
            if (r <= MAX && r >= MIN) {
              f.locals[slot] = r;
              return NEXT;
            }
          }
          f.pos = p;
          f.locals[slot] = inplaceBinary(op, a, b, f.thread);
          return NEXT;
        };
      }
      if (op === '+') {
        return (f) => {
          const a = read(f);
          const b = rhs(f);
          if (typeof a === 'number' && typeof b === 'number') {
            const r = a + b;
            if (r <= MAX && r >= MIN) {
              write(f, r);
              return NEXT;
            }
          }
          f.pos = p;
          write(f, inplaceBinary(op, a, b, f.thread));
          return NEXT;
        };
      }
      return (f) => {
        const a = read(f);
        const b = rhs(f);
        f.pos = p;
        write(f, inplaceBinary(op, a, b, f.thread));
        return NEXT;
      };
    }
    case 'Index': {
      // `counts[k] += 1`, `out[0] += x`: small int sums skip the generic operator.
      const isAdd = op === '+';
      const x = compileExpr(c, lhs.x);
      const k = compileExpr(c, lhs.index);
      const lp = encodePos(lhs);
      return (f) => {
        const a = x(f);
        const key = k(f);
        f.pos = lp;
        const old = index(a, key);
        const b = rhs(f);
        f.pos = p;
        const v = isAdd ? addNumbers(old, b) : undefined;
        f.pos = lp;
        setIndex(a, key, v ?? inplaceBinary(op, old, b, f.thread));
        return NEXT;
      };
    }
    case 'Dot': {
      const x = compileExpr(c, lhs.x);
      const lp = encodePos(lhs);
      const name = lhs.name;
      return (f) => {
        const a = x(f);
        f.pos = lp;
        const old = getAttr(a, name, f.thread);
        const b = rhs(f);
        f.pos = p;
        const v = inplaceBinary(op, old, b, f.thread);
        f.pos = lp;
        setAttr(a, name, v);
        return NEXT;
      };
    }
    default:
      throw new Error(`bad augmented assignment target ${lhs.kind}`);
  }
}

function loadStmt(c: FnCtx, s: A.LoadStmt): Exec {
  const p = encodePos(s);
  const names = s.names.map((n) => ({
    orig: n.orig,
    assign: compileIdentAssign(c, n.local),
    pos: encodePos(n),
  }));
  const module = s.module;
  return (f) => {
    f.pos = p;
    const loader = c.mod.loader;
    if (loader === null) throw new StarlarkError(`cannot load ${module}: load is not available`);
    const members = loader(module, f.thread);
    for (const n of names) {
      const v = members.get(n.orig);
      if (v === undefined) {
        f.pos = n.pos;
        const hint = nearest(
          n.orig,
          [...members.keys()].filter((k) => !k.startsWith('_')),
        );
        throw new StarlarkError(
          `load: name ${n.orig} not found in module ${module}${hint === null ? '' : ` (did you mean ${hint}?)`}`,
        );
      }
      n.assign(f, v);
    }
    return NEXT;
  };
}

function compileStmt(c: FnCtx, s: A.Stmt): Exec {
  switch (s.kind) {
    case 'ExprStmt': {
      const x = compileExpr(c, s.x);
      return (f) => {
        x(f);
        return NEXT;
      };
    }
    case 'Assign': {
      if (s.op !== '=') return augmented(c, s);
      const rhs = compileExpr(c, s.rhs);
      const slot = localSlot(s.lhs);
      if (slot >= 0) {
        return (f) => {
          f.locals[slot] = rhs(f);
          return NEXT;
        };
      }
      const lhs = compileAssign(c, s.lhs);
      return (f) => {
        lhs(f, rhs(f));
        return NEXT;
      };
    }
    case 'If': {
      const cond = compileExpr(c, s.cond);
      const then = compileBlock(c, s.then);
      if (s.else.length === 0) {
        return (f) => {
          const v = cond(f);
          return (typeof v === 'boolean' ? v : truth(v)) ? then(f) : NEXT;
        };
      }
      const otherwise = compileBlock(c, s.else);
      return (f) => {
        const v = cond(f);
        return (typeof v === 'boolean' ? v : truth(v)) ? then(f) : otherwise(f);
      };
    }
    case 'For': {
      const iter = compileExpr(c, s.iter);
      const body = compileBlock(c, s.body);
      const p = encodePos(s);
      const slot = localSlot(s.vars);
      if (slot >= 0) {
        return (f) => {
          const x = iter(f);
          f.pos = p;
          return forEachLocal(f, x, slot, body);
        };
      }
      const assign = compileAssign(c, s.vars);
      const step = (f: Parameters<Exec>[0], v: Value): number => {
        assign(f, v);
        return body(f);
      };
      return (f) => {
        const x = iter(f);
        f.pos = p;
        return forEachValue(f, x, step);
      };
    }
    case 'While': {
      const cond = compileExpr(c, s.cond);
      const body = compileBlock(c, s.body);
      return (f) => {
        const th = f.thread;
        for (;;) {
          const v = cond(f);
          if (!(typeof v === 'boolean' ? v : truth(v))) return NEXT;
          if (++th.stepCount >= th.stepMark) th.checkpoint();
          const r = body(f);
          if (r === BREAK) return NEXT;
          if (r === RETURN) return RETURN;
        }
      };
    }
    case 'Return': {
      if (s.x === null) return () => RETURN;
      const x = compileExpr(c, s.x);
      return (f) => {
        f.ret = x(f);
        return RETURN;
      };
    }
    case 'break':
      return () => BREAK;
    case 'continue':
      return () => CONTINUE;
    case 'pass':
      return () => NEXT;
    case 'Def': {
      const mk = makeFunction(c, s.name.name, s.params, s.scope, s, {
        kind: 'stmts',
        body: s.body,
      });
      const assign = compileIdentAssign(c, s.name);
      return (f) => {
        assign(f, mk(f));
        return NEXT;
      };
    }
    case 'Load':
      return loadStmt(c, s);
  }
}
