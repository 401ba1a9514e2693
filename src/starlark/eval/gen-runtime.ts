/**
 * What generated function bodies call: the closure compiler's slow paths, each taking the frame
 * and the encoded position to report, so that generated code sets `f.pos` exactly where the
 * closures do. Generated code inlines only the small-int and same-type fast paths; everything
 * else comes here, keeping one copy of each operator's semantics.
 */
import {
  Dict,
  List,
  None,
  Range,
  StarlarkError,
  Tuple,
  binary,
  getAttr,
  index,
  iterate,
  repr,
  setAttr,
  setIndex,
  slice,
  truth,
  typeName,
  unary,
  type Value,
} from '../values/index.js';
import { intAdd, intAnd, intMod, intMul, intOr, intSub, intXor } from '../values/arith.js';
import { unpack } from './compile-assign.js';
import { MethodSite, callAt, callPositional, callValue } from './compile-call.js';
import { addNumbers, inplaceBinary } from './compile-stmt.js';
import { StarFunction, annotate, type Code, type Frame } from './function.js';
import type { Cell } from './function.js';
import type { EvalThread } from './thread.js';

type Int = number | bigint;

function isInt(v: Value): v is Int {
  const t = typeof v;
  return t === 'number' || t === 'bigint';
}

function bin(f: Frame, p: number, op: string, a: Value, b: Value): Value {
  f.pos = p;
  return binary(op, a, b, f.thread);
}

function add(f: Frame, p: number, a: Value, b: Value): Value {
  if (typeof a === 'string' && typeof b === 'string') {
    const n = a.length + b.length;
    if (n > f.thread.maxAlloc) f.thread.alloc(n);
    return a + b;
  }
  if (isInt(a) && isInt(b)) return intAdd(a, b);
  return bin(f, p, '+', a, b);
}

function sub(f: Frame, p: number, a: Value, b: Value): Value {
  return isInt(a) && isInt(b) ? intSub(a, b) : bin(f, p, '-', a, b);
}

function mul(f: Frame, p: number, a: Value, b: Value): Value {
  return isInt(a) && isInt(b) ? intMul(a, b) : bin(f, p, '*', a, b);
}

function mod(f: Frame, p: number, a: Value, b: Value): Value {
  if (typeof b === 'bigint' && b > 0n && isInt(a)) return intMod(a, b);
  if (typeof b === 'number' && b > 0 && typeof a === 'bigint') {
    // As the closures' `x % K`: a big dividend meeting a small positive modulus.
    const kb = BigInt(b);
    const r = a % kb;
    return Number(r < 0n ? r + kb : r);
  }
  return bin(f, p, '%', a, b);
}

function xor(f: Frame, p: number, a: Value, b: Value): Value {
  return isInt(a) && isInt(b) ? intXor(a, b) : bin(f, p, '^', a, b);
}

function and(f: Frame, p: number, a: Value, b: Value): Value {
  return isInt(a) && isInt(b) ? intAnd(a, b) : bin(f, p, '&', a, b);
}

function or(f: Frame, p: number, a: Value, b: Value): Value {
  return isInt(a) && isInt(b) ? intOr(a, b) : bin(f, p, '|', a, b);
}

function neg(f: Frame, p: number, v: Value): Value {
  f.pos = p;
  return unary('-', v);
}

function unop(f: Frame, p: number, op: '+' | '~', v: Value): Value {
  f.pos = p;
  return unary(op, v);
}

/** `a[i]`, with the closures' inline list, tuple and string cases. */
function idx(f: Frame, p: number, a: Value, i: Value): Value {
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

function slc(f: Frame, p: number, a: Value, lo: Value, hi: Value, step: Value): Value {
  f.pos = p;
  return slice(a, lo, hi, step);
}

function attr(f: Frame, p: number, v: Value, name: string): Value {
  f.pos = p;
  return getAttr(v, name, f.thread);
}

function setIdx(f: Frame, p: number, a: Value, k: Value, v: Value): void {
  f.pos = p;
  setIndex(a, k, v);
}

function setAttrAt(f: Frame, p: number, a: Value, name: string, v: Value): void {
  f.pos = p;
  setAttr(a, name, v);
}

function unpackAt(f: Frame, p: number, v: Value, n: number): readonly Value[] {
  f.pos = p;
  return unpack(v, n);
}

/** `x op= y` on a name: the closures' order of position update and operator. */
function augment(f: Frame, p: number, op: string, a: Value, b: Value): Value {
  if (op === '+') {
    if (typeof a === 'number' && typeof b === 'number') {
      const r = a + b;
      if (r <= Number.MAX_SAFE_INTEGER && r >= Number.MIN_SAFE_INTEGER) return r;
    }
  }
  f.pos = p;
  return inplaceBinary(op, a, b, f.thread);
}

/** `a[key] op= b` after `old = a[key]` and `b` are evaluated (closure `augmented`, Index case). */
function augIndex(
  f: Frame,
  p: number,
  lp: number,
  op: string,
  a: Value,
  key: Value,
  old: Value,
  b: Value,
): void {
  f.pos = p;
  const v = op === '+' ? addNumbers(old, b) : undefined;
  f.pos = lp;
  setIndex(a, key, v ?? inplaceBinary(op, old, b, f.thread));
}

/** `a.name op= b` after `old = a.name` and `b` are evaluated. */
function augAttr(
  f: Frame,
  p: number,
  lp: number,
  op: string,
  a: Value,
  name: string,
  old: Value,
  b: Value,
): void {
  f.pos = p;
  const v = inplaceBinary(op, old, b, f.thread);
  f.pos = lp;
  setAttr(a, name, v);
}

function dictPut(f: Frame, p: number, d: Dict, k: Value, v: Value): void {
  f.pos = p;
  if (d.get(k) !== undefined) throw new StarlarkError(`duplicate key: ${repr(k)}`);
  d.set(k, v);
}

function compPut(f: Frame, p: number, d: Dict, k: Value, v: Value): void {
  f.pos = p;
  d.set(k, v);
}

function unboundLocal(f: Frame, p: number, name: string): never {
  f.pos = p;
  throw new StarlarkError(`local variable ${name} referenced before assignment`);
}

function unboundGlobal(f: Frame, p: number, name: string): never {
  f.pos = p;
  throw new StarlarkError(`global variable ${name} referenced before assignment`);
}

function undefinedName(name: string): never {
  throw new StarlarkError(`undefined: ${name}`);
}

function recursive(code: Code): never {
  throw new StarlarkError(`function ${code.name} called recursively`);
}

function overflow(): never {
  throw new StarlarkError('Starlark stack overflow');
}

/** `f(*x)`: appends the elements of `x` to `args`. */
function spreadArgs(f: Frame, p: number, args: Value[], x: Value): void {
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

/** `f(**x)`: appends the entries of `x` to the keyword list, made if null. */
function spreadKwargs(
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

/**
 * One step. A helper rather than inline code: the checkpoint branch is taken only every few
 * thousand steps, and a branch never taken before V8 optimises a generated function would have
 * no type feedback and deoptimise it when first taken; this one call site is shared by all.
 */
function step(th: EvalThread): void {
  if (++th.stepCount >= th.stepMark) th.checkpoint();
}

function mkfn(code: Code, defaults: ReadonlyArray<Value | undefined>, free: Cell[]): StarFunction {
  return new StarFunction(code, defaults, free);
}

function makeRuntime() {
  return {
    None,
    List,
    Tuple,
    Dict,
    Range,
    StarFunction,
    MethodSite,
    NOLOCALS: [] as Array<Value | undefined>,
    truth,
    iterate,
    index,
    annotate,
    callAt,
    callPositional,
    callValue,
    bin,
    add,
    sub,
    mul,
    mod,
    xor,
    and,
    or,
    neg,
    unop,
    idx,
    slc,
    attr,
    setIdx,
    setAttrAt,
    unpackAt,
    augment,
    augIndex,
    augAttr,
    dictPut,
    compPut,
    unboundLocal,
    unboundGlobal,
    undefinedName,
    recursive,
    overflow,
    spreadArgs,
    spreadKwargs,
    mkfn,
    step,
  };
}

export type Runtime = ReturnType<typeof makeRuntime>;

let runtime: Runtime | null = null;

/**
 * The helpers, by the fixed names generated code destructures them under. Made on first use:
 * this module sits in an import cycle with the closure compiler, whose classes are not yet
 * initialised while the cycle loads.
 */
export function genRuntime(): Runtime {
  return (runtime ??= makeRuntime());
}
