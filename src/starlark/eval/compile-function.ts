import type { Value } from '../values/index.js';
import type * as A from '../syntax/ast.js';
import type { Binding, FunctionScope } from '../syntax/binding.js';
import { compileExpr, type Eval } from './compile-expr.js';
import { compileBlock } from './compile-stmt.js';
import type { FnCtx } from './context.js';
import { Cell, RETURN, StarFunction, type Code, type Frame } from './function.js';
import { generateBody } from './gen-function.js';

export type FunctionBody = { kind: 'expr'; body: A.Expr } | { kind: 'stmts'; body: A.Stmt[] };

/** A compiled function, before its default values and captured cells are known. */
export interface CodeParts {
  readonly code: Code;
  /** Default value expression per plain parameter, null for a required one. */
  readonly defaults: ReadonlyArray<A.Expr | null>;
  /** Per free variable, the binding it captures in the enclosing function. */
  readonly outers: ReadonlyArray<Binding | null>;
}

/**
 * One CodeParts per function node: the generator may compile a nested function and then give
 * up on its enclosing one, whose closures then compile the nested function again.
 */
const compiled = new WeakMap<FunctionScope, CodeParts>();

/** Compiles a `def` or `lambda` body once: generated code when possible, else closures. */
export function compileCode(
  c: FnCtx,
  name: string,
  params: A.Param[],
  scope: FunctionScope | null,
  body: FunctionBody,
): CodeParts {
  if (scope === null) throw new Error('function not resolved');
  const done = compiled.get(scope);
  if (done !== undefined) return done;
  const np = scope.numParams;
  const paramNames = scope.locals.slice(0, np).map((b) => b.name);
  const simple = !scope.hasVarargs && !scope.hasKwargs && scope.numKwonly === 0;
  const code: Code = {
    name,
    file: c.mod.file,
    scope,
    nlocals: scope.locals.length,
    paramNames,
    paramIndex: new Map(paramNames.map((n, i) => [n, i])),
    cellSlots: scope.locals.filter((b) => b.scope === 'cell').map((b) => b.index),
    simple,
    body: () => RETURN,
    gen: null,
    entry: null,
    direct: -1,
    active: 0,
  };
  const inner: FnCtx = { mod: c.mod, scope };
  const g = c.mod.codegen ? generateBody(inner, code, body) : null;
  if (g !== null) {
    code.gen = g.direct;
    code.entry = g.entry;
    code.direct = simple ? np : -1;
  } else if (body.kind === 'expr') {
    const e = compileExpr(inner, body.body);
    code.body = (f) => {
      f.ret = e(f);
      return RETURN;
    };
  } else {
    code.body = compileBlock(inner, body.body);
  }
  const parts: CodeParts = {
    code,
    defaults: params
      .filter((p) => p.kind === 'plain' || p.kind === 'default')
      .map((p) => p.default),
    outers: scope.freevars.map((fv) => fv.outer),
  };
  compiled.set(scope, parts);
  return parts;
}

/** Compiles a `def` or `lambda` once; the returned closure makes a function value each time it runs. */
export function makeFunction(
  c: FnCtx,
  name: string,
  params: A.Param[],
  scope: FunctionScope | null,
  _pos: A.Pos,
  body: FunctionBody,
): Eval {
  const { code, defaults: exprs, outers } = compileCode(c, name, params, scope, body);
  const defaults = exprs.map((d) => (d === null ? null : compileExpr(c, d)));
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
