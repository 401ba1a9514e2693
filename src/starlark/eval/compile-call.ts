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
  if (fn instanceof Builtin || isCallable(fn)) {
    try {
      return fn.call(f.thread, args, kwargs);
    } catch (e) {
      // Remember the innermost builtin, for the "Error in NAME:" line of tracebacks.
      if (e instanceof StarlarkError && (e as BuiltinTagged).builtin === undefined)
        (e as BuiltinTagged).builtin = fn.name;
      throw e;
    }
  }
  throw new StarlarkError(`invalid call of non-function (${typeName(fn)})`);
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
      return (f, args) => {
        const x = v(f);
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
      };
    case 'starstar':
      return (f, _args, kw) => {
        const x = v(f);
        f.pos = p;
        if (!(x instanceof Dict))
          throw new StarlarkError(`argument after ** must be a mapping, not ${typeName(x)}`);
        const list = (kw.list ??= []);
        for (const [k, val] of x.entries()) {
          if (typeof k !== 'string')
            throw new StarlarkError(`keywords must be strings, not ${typeName(k)}`);
          list.push([k, val]);
        }
      };
  }
}

export function callExpr(c: FnCtx, e: A.CallExpr): Eval {
  const p = encodePos(e);
  if (e.args.every((a) => a.kind === 'pos')) {
    const mkArgs = elems(
      c,
      e.args.map((a) => a.value),
    );
    if (e.fn.kind === 'Dot') {
      // Method calls skip allocating a bound-method object.
      const recv = compileExpr(c, e.fn.x);
      const name = e.fn.name;
      const dp = encodePos(e.fn);
      // Inline cache: the native method last found here, by receiver type name. Receivers
      // with their own attributes (host objects) always take the general path.
      let cachedType = '';
      let cachedImpl: BuiltinImpl | undefined;
      return (f) => {
        const r = recv(f);
        const args = mkArgs(f);
        f.pos = p;
        const t = typeName(r);
        if (t === cachedType && ownAttrsFree(r))
          return (cachedImpl as BuiltinImpl)(f.thread, args, null, r);
        if (ownAttrsFree(r)) {
          const impl = lookupMethod(t, name);
          if (impl !== undefined) {
            cachedType = t;
            cachedImpl = impl;
            return impl(f.thread, args, null, r);
          }
        }
        const v = callMethod(f.thread, r, name, args, null);
        if (v !== undefined) return v;
        f.pos = dp;
        const fn = getAttr(r, name, f.thread);
        f.pos = p;
        return callValue(f, fn, args, null);
      };
    }
    const fnx = compileExpr(c, e.fn);
    const nargs = e.args.length;
    return (f) => {
      const fn = fnx(f);
      const args = mkArgs(f);
      f.pos = p;
      // Positional calls of plain Starlark functions bind by position: the args become the locals.
      if (fn instanceof StarFunction) {
        const code = fn.code;
        if (code.simple && nargs === code.scope.numParams) {
          const locals = args as Array<Value | undefined>;
          for (let i = nargs; i < code.nlocals; i++) locals.push(undefined);
          return invoke(f.thread, fn, locals);
        }
      }
      return callValue(f, fn, args, null);
    };
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
