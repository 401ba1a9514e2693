/**
 * What generated function bodies call: the closure compiler's slow paths, each taking the frame
 * and the encoded position to report, so that generated code sets `f.pos` exactly where the
 * closures do. Generated code inlines only the small-int and same-type fast paths; everything
 * else comes here, keeping one copy of each operator's semantics.
 */
import {
  Builtin,
  Dict,
  List,
  None,
  Range,
  StarlarkError,
  Tuple,
  getAttr,
  index,
  iterate,
  repr,
  setAttr,
  setIndex,
  slice,
  truth,
  type Value,
} from '../values/index.js';
import { toBig } from '../values/arith.js';
import { modBits, modPow2, mulMod } from './gen-fused.js';
import { fastHelpers } from './gen-fast-helpers.js';
import { add, and, augment, bin, mod, mul, neg, or, shl, shr, sub, unop, xor } from './gen-ops.js';
import { unpack } from './compile-assign.js';
import {
  MethodSite,
  callAt,
  callHost,
  callPositional,
  callValue,
  spreadArgs,
  spreadKwargs,
} from './compile-call.js';
import { indexAt as idx } from './compile-expr.js';
import { addNumbers, inplaceBinary } from './compile-stmt.js';
import { StarFunction, annotate, newFrame, type Code, type Frame } from './function.js';
import type { Cell } from './function.js';
import { EvalThread } from './thread.js';

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

/**
 * One step. A helper rather than inline code: the checkpoint branch is taken only every few
 * thousand steps, and a branch never taken before V8 optimises a generated function would have
 * no type feedback and deoptimise it when first taken; this one call site is shared by all.
 */
function step(th: EvalThread): void {
  if (++th.stepCount >= th.stepMark) th.checkpoint();
}

/** A universal builtin called with positional arguments: `callValue`'s builtin case. */
function callBuiltin(f: Frame, fn: Builtin, args: Value[]): Value {
  return callHost(f, fn, args, null);
}

const NOLOCALS: Array<Value | undefined> = [];

/**
 * The frame for the first generated call at height `ht`, made with frames for twice as many
 * heights (at least 64). A generated function takes this branch only where its call is deeper
 * than any before, and where that happens in code V8 has optimised, the branch, having had no
 * type feedback, deoptimises the function and every activation of it on the stack (20 and more
 * in a recursion): with room to spare, a recursion meets it once per doubling, not per level.
 */
function genFrame(th: EvalThread, ht: number): Frame {
  const gfs = th.genFrames as Frame[];
  const want = Math.max(64, 2 * ht);
  while (gfs.length < want) gfs.push(newFrame(NOLOCALS, [], th, '', ''));
  // The call stack too, so that storing the frame at `ht` stays within it: a store past the
  // end, in optimised code, was an "out of bounds" deoptimisation of the same kind.
  const frames = th.frames;
  while (frames.length < want) frames.push(undefined);
  return gfs[ht]!;
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
    NOLOCALS,
    fromCharCode: String.fromCharCode,
    numStr: String,
    asUintN: BigInt.asUintN,
    toNumber: Number,
    toBigInt: toBig,
    MAXBIG: BigInt(Number.MAX_SAFE_INTEGER),
    truth,
    iterate,
    index,
    annotate,
    callAt,
    callPositional,
    callValue,
    callBuiltin,
    bin,
    add,
    sub,
    mul,
    mod,
    xor,
    shl,
    shr,
    mulMod,
    modPow2,
    modBits,
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
    genFrame,
    ...fastHelpers(),
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
  if (runtime === null) {
    runtime = makeRuntime();
    // Checkpoints on a throwaway thread give `step`'s rarely taken branch its type feedback
    // now: V8 optimises `step` (shared by all generated code) within the first few thousand
    // steps, and a first checkpoint after that would deoptimise it and every generated frame
    // on the stack that inlined it.
    // V8 allocates a function's feedback only after its first few calls, hence a few rounds.
    const warm = new EvalThread({}, {}, () => {});
    for (let i = 0; i < 32; i++) {
      warm.stepMark = 0;
      step(warm);
      genFrame(warm, i);
    }
  }
  return runtime;
}
