import {
  Builtin,
  Dict,
  StarlarkError,
  StarlarkObject,
  callMethod,
  getAttr,
  isCallable,
  iterate,
  lookupMethod,
  typeName,
  type BuiltinImpl,
  type Callable,
  type Value,
} from '../values/index.js';
import type * as A from '../syntax/ast.js';
import { compileExpr, elems, type Eval } from './compile-expr.js';
import { encodePos, type FnCtx } from './context.js';
import { StarFunction, bindArgs, invoke, type Frame } from './function.js';

type BuiltinTagged = StarlarkError & { builtin?: string };

/** Calls any callable value from Starlark code; `args` may be reused as the callee's locals. */
export function callValue(
  f: Frame,
  fn: Value,
  args: Value[],
  kwargs: Array<[string, Value]> | null,
): Value {
  if (fn instanceof StarFunction) {
    const code = fn.code;
    if (kwargs === null && code.simple && args.length === code.scope.numParams) {
      const locals = args as Array<Value | undefined>;
      for (let i = args.length; i < code.nlocals; i++) locals.push(undefined);
      return invoke(f.thread, fn, locals);
    }
    return invoke(f.thread, fn, bindArgs(fn, args, kwargs));
  }
  if (fn instanceof Builtin || isCallable(fn)) return callHost(f, fn, args, kwargs);
  throw new StarlarkError(`invalid call of non-function (${typeName(fn)})`);
}

/** Calls a builtin or other host callable (both backends). */
export function callHost(
  f: Frame,
  fn: Callable,
  args: Value[],
  kwargs: Array<[string, Value]> | null,
): Value {
  try {
    return fn.call(f.thread, args, kwargs);
  } catch (e) {
    // Remember the innermost builtin, for the "Error in NAME:" line of tracebacks.
    if (e instanceof StarlarkError && (e as BuiltinTagged).builtin === undefined)
      (e as BuiltinTagged).builtin = fn.name;
    throw e;
  }
}

const baseGetAttr = StarlarkObject.prototype.getAttr;

/** True when `x` has no attributes beyond its type's native methods. */
function ownAttrsFree(x: Value): boolean {
  return typeof x !== 'object' || !(x instanceof StarlarkObject) || x.getAttr === baseGetAttr;
}

type ArgStep = (f: Frame, args: Value[], kw: { list: Array<[string, Value]> | null }) => void;

function argStep(c: FnCtx, a: A.Arg): ArgStep {
  const v = compileExpr(c, a.value);
  const p = encodePos(a);
  switch (a.kind) {
    case 'pos':
      return (f, args) => {
        args.push(v(f));
      };
    case 'named': {
      const name = a.name as string;
      return (f, _args, kw) => {
        (kw.list ??= []).push([name, v(f)]);
      };
    }
    case 'star':
      return (f, args) => spreadArgs(f, p, args, v(f));
    case 'starstar':
      return (f, _args, kw) => {
        kw.list = spreadKwargs(f, p, kw.list, v(f));
      };
  }
}

/** `f(*x)`: appends the elements of `x` to `args` (both backends). */
export function spreadArgs(f: Frame, p: number, args: Value[], x: Value): void {
  f.pos = p;
  let it;
  try {
    it = iterate(x);
  } catch {
    throw new StarlarkError(`argument after * must be iterable, not ${typeName(x)}`);
  }
  try {
    for (let e = it.next(); e !== undefined; e = it.next()) args.push(e);
  } finally {
    it.done();
  }
}

/** `f(**x)`: appends the entries of `x` to the keyword list, made if null (both backends). */
export function spreadKwargs(
  f: Frame,
  p: number,
  kw: Array<[string, Value]> | null,
  x: Value,
): Array<[string, Value]> {
  f.pos = p;
  if (!(x instanceof Dict))
    throw new StarlarkError(`argument after ** must be a mapping, not ${typeName(x)}`);
  const list = kw ?? [];
  for (const [k, val] of x.entries()) {
    if (typeof k !== 'string')
      throw new StarlarkError(`keywords must be strings, not ${typeName(k)}`);
    list.push([k, val]);
  }
  return list;
}

/** A positional call of a value: Starlark functions bind by position, the args becoming the locals. */
export function callPositional(f: Frame, fn: Value, args: Value[]): Value {
  if (fn instanceof StarFunction) {
    const code = fn.code;
    if (code.simple && args.length === code.scope.numParams) {
      const locals = args as Array<Value | undefined>;
      for (let i = args.length; i < code.nlocals; i++) locals.push(undefined);
      return invoke(f.thread, fn, locals);
    }
  }
  return callValue(f, fn, args, null);
}

/**
 * `f(a, b)` with positional arguments only. A global callee is read from its slot inline
 * (its closure still reports an unbound one), and small arities build the argument array in
 * place, saving two closure calls per call.
 */
function plainCall(c: FnCtx, e: A.CallExpr, p: number): Eval {
  const fnx = compileExpr(c, e.fn);
  const b = e.fn.kind === 'Ident' ? e.fn.binding : null;
  const g = b !== null && b.scope === 'global' ? c.mod.globals : null;
  const gi = b === null ? 0 : b.index;
  const arg = (i: number): Eval => compileExpr(c, (e.args[i] as A.Arg).value);
  switch (e.args.length) {
    case 1: {
      const a0 = arg(0);
      return (f) => {
        const fn = (g === null ? undefined : g[gi]) ?? fnx(f);
        const args = [a0(f)];
        f.pos = p;
        return callPositional(f, fn, args);
      };
    }
    case 2: {
      const a0 = arg(0);
      const a1 = arg(1);
      return (f) => {
        const fn = (g === null ? undefined : g[gi]) ?? fnx(f);
        const args = [a0(f), a1(f)];
        f.pos = p;
        return callPositional(f, fn, args);
      };
    }
    default: {
      const mkArgs = elems(
        c,
        e.args.map((a) => a.value),
      );
      return (f) => {
        const fn = (g === null ? undefined : g[gi]) ?? fnx(f);
        const args = mkArgs(f);
        f.pos = p;
        return callPositional(f, fn, args);
      };
    }
  }
}

/**
 * One `x.name(...)` call site, with an inline cache of the native method last found there,
 * by receiver type name. Receivers with their own attributes (host objects) always take the
 * general path.
 */
export class MethodSite {
  cachedType = '';
  cachedImpl: BuiltinImpl | undefined = undefined;
  constructor(
    readonly name: string,
    readonly pos: number,
    readonly dotPos: number,
  ) {}
}

export function callAt(f: Frame, site: MethodSite, r: Value, args: Value[]): Value {
  f.pos = site.pos;
  const t = typeName(r);
  if (t === site.cachedType && ownAttrsFree(r))
    return (site.cachedImpl as BuiltinImpl)(f.thread, args, null, r);
  if (ownAttrsFree(r)) {
    const impl = lookupMethod(t, site.name);
    if (impl !== undefined) {
      site.cachedType = t;
      site.cachedImpl = impl;
      return impl(f.thread, args, null, r);
    }
  }
  const v = callMethod(f.thread, r, site.name, args, null);
  if (v !== undefined) return v;
  f.pos = site.dotPos;
  const fn = getAttr(r, site.name, f.thread);
  f.pos = site.pos;
  return callValue(f, fn, args, null);
}

/** `x.name(a, b)`: method calls skip allocating a bound-method object. */
function methodCall(c: FnCtx, e: A.CallExpr, dot: A.DotExpr, p: number): Eval {
  const recv = compileExpr(c, dot.x);
  const site = new MethodSite(dot.name, p, encodePos(dot));
  if (e.args.length === 1) {
    const a0 = compileExpr(c, (e.args[0] as A.Arg).value);
    return (f) => {
      const r = recv(f);
      return callAt(f, site, r, [a0(f)]);
    };
  }
  const mkArgs = elems(
    c,
    e.args.map((a) => a.value),
  );
  return (f) => {
    const r = recv(f);
    return callAt(f, site, r, mkArgs(f));
  };
}

export function callExpr(c: FnCtx, e: A.CallExpr): Eval {
  const p = encodePos(e);
  if (e.args.every((a) => a.kind === 'pos')) {
    if (e.fn.kind !== 'Dot') return plainCall(c, e, p);
    return methodCall(c, e, e.fn, p);
  }
  const fnx = compileExpr(c, e.fn);
  const steps = e.args.map((a) => argStep(c, a));
  const n = steps.length;
  return (f) => {
    const fn = fnx(f);
    const args: Value[] = [];
    const kw = { list: null as Array<[string, Value]> | null };
    for (let i = 0; i < n; i++) (steps[i] as ArgStep)(f, args, kw);
    f.pos = p;
    return callValue(f, fn, args, kw.list);
  };
}
