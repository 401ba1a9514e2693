import type { Value } from '../values/index.js';
import type * as A from '../syntax/ast.js';
import type { FunctionScope } from '../syntax/binding.js';
import { compileExpr, type Eval } from './compile-expr.js';
import { compileBlock } from './compile-stmt.js';
import type { FnCtx } from './context.js';
import { Cell, RETURN, StarFunction, type Code, type Frame } from './function.js';

export type FunctionBody = { kind: 'expr'; body: A.Expr } | { kind: 'stmts'; body: A.Stmt[] };

/** Compiles a `def` or `lambda` once; the returned closure makes a function value each time it runs. */
export function makeFunction(
  c: FnCtx,
  name: string,
  params: A.Param[],
  scope: FunctionScope | null,
  _pos: A.Pos,
  body: FunctionBody,
): Eval {
  if (scope === null) throw new Error('function not resolved');
  const np = scope.numParams;
  const paramNames = scope.locals.slice(0, np).map((b) => b.name);
  const code: Code = {
    name,
    file: c.mod.file,
    scope,
    nlocals: scope.locals.length,
    paramNames,
    paramIndex: new Map(paramNames.map((n, i) => [n, i])),
    cellSlots: scope.locals.filter((b) => b.scope === 'cell').map((b) => b.index),
    simple: !scope.hasVarargs && !scope.hasKwargs && scope.numKwonly === 0,
    body: () => RETURN,
    active: 0,
  };
  const inner: FnCtx = { mod: c.mod, scope };
  if (body.kind === 'expr') {
    const e = compileExpr(inner, body.body);
    code.body = (f) => {
      f.ret = e(f);
      return RETURN;
    };
  } else {
    code.body = compileBlock(inner, body.body);
  }
  const defaults = params
    .filter((p) => p.kind === 'plain' || p.kind === 'default')
    .map((p) => (p.default === null ? null : compileExpr(c, p.default)));
  const outers = scope.freevars.map((fv) => fv.outer);
  const hasDefaults = defaults.some((d) => d !== null);
  const noDefaults: Array<Value | undefined> = defaults.map(() => undefined);
  return (f: Frame) => {
    let dv = noDefaults;
    if (hasDefaults) {
      dv = [];
      for (const d of defaults) dv.push(d === null ? undefined : d(f));
    }
    const free: Cell[] = [];
    for (const o of outers) {
      if (o === null) continue;
      free.push(
        o.scope === 'free' ? (f.free[o.index] as Cell) : (f.locals[o.index] as unknown as Cell),
      );
    }
    return new StarFunction(code, dv, free);
  };
}
