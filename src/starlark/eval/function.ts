import {
  Dict,
  None,
  StarlarkError,
  StarlarkObject,
  Tuple,
  type Callable,
  type Thread,
  type Value,
} from '../values/index.js';
import type { FunctionScope } from '../syntax/binding.js';
import { nearest } from '../syntax/spell.js';
import { EvalThread, type FrameInfo } from './thread.js';

/** A captured variable shared between a function and the closures defined in it. */
export class Cell {
  constructor(public v: Value | undefined) {}
}

/** Statement closures return one of these control codes. */
export const NEXT = 0;
export const BREAK = 1;
export const CONTINUE = 2;
export const RETURN = 3;

export type Exec = (f: Frame) => number;

/**
 * One activation: locals live in a plain array indexed by resolver-assigned slots. A plain
 * object made by `newFrame` rather than a class: one frame is allocated per call, and an
 * object literal is built without the constructor call that `new` costs before V8 has
 * optimised the caller.
 */
export interface Frame extends FrameInfo {
  pos: number;
  ret: Value;
  locals: Array<Value | undefined>;
  readonly free: Cell[];
  readonly thread: EvalThread;
  readonly file: string;
  readonly fn: string;
}

export function newFrame(
  locals: Array<Value | undefined>,
  free: Cell[],
  thread: EvalThread,
  file: string,
  fn: string,
): Frame {
  return { pos: 0, ret: None, locals, free, thread, file, fn };
}

/** A generated body's direct entry: `(thread, fn, ...parameter slots)`. */
export type GenFn = (thread: EvalThread, fn: StarFunction, ...slots: Value[]) => Value;
/** A generated body's entry for a bound locals array (as `invoke` has it). */
export type GenEntry = (
  thread: EvalThread,
  fn: StarFunction,
  locals: Array<Value | undefined>,
) => Value;

/** The compiled, closure-independent part of a `def` or `lambda`. */
export interface Code {
  readonly name: string;
  readonly file: string;
  readonly scope: FunctionScope;
  readonly nlocals: number;
  readonly paramNames: readonly string[];
  readonly paramIndex: ReadonlyMap<string, number>;
  /** Slots that hold cells; parameters among them are wrapped on entry. */
  readonly cellSlots: readonly number[];
  /** True when a call with exactly `numParams` positional arguments needs no further binding. */
  readonly simple: boolean;
  body: Exec;
  /** Generated code (gen-function.ts), which replaces `invoke` for this Code; else null. */
  gen: GenFn | null;
  entry: GenEntry | null;
  /** The arity callers may pass straight to `gen` (simple functions), else -1. */
  direct: number;
  /** Activations in progress, for starlark-go's "called recursively" check. */
  active: number;
}

let nextId = 1;

/** A Starlark function value (`def` or `lambda`). */
export class StarFunction extends StarlarkObject implements Callable {
  private readonly id = nextId++;

  constructor(
    readonly code: Code,
    /** Default value per parameter slot; undefined marks a required parameter. */
    readonly defaults: ReadonlyArray<Value | undefined>,
    readonly free: Cell[],
  ) {
    super();
  }

  override get typeName(): string {
    return 'function';
  }

  get name(): string {
    return this.code.name;
  }

  override repr(): string {
    return `<function ${this.code.name}>`;
  }

  override hash(): number {
    return this.id;
  }

  override freeze(): void {
    if (this.frozen) return;
    this.frozen = true;
    for (const d of this.defaults) if (d instanceof StarlarkObject) d.freeze();
    for (const c of this.free) if (c.v instanceof StarlarkObject) c.v.freeze();
  }

  call(thread: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
    if (!(thread instanceof EvalThread))
      throw new StarlarkError(`function ${this.name} called from a foreign thread`);
    const code = this.code;
    if (kwargs === null && code.direct === args.length) {
      // Generated code: the arguments go straight to its parameters (sorted's key, map-like
      // builtins call here once per element).
      const gen = code.gen as GenFn;
      return args.length === 1 ? gen(thread, this, args[0] as Value) : gen(thread, this, ...args);
    }
    if (kwargs === null && code.simple && args.length === code.scope.numParams) {
      // Host callers (sorted's key, map-like builtins) may reuse `args`, so copy it.
      const locals: Array<Value | undefined> = args.slice();
      for (let i = args.length; i < code.nlocals; i++) locals.push(undefined);
      return invoke(thread, this, locals);
    }
    return invoke(thread, this, bindArgs(this, args, kwargs));
  }
}

/** Runs a function body in a fresh frame whose locals are already bound. */
export function invoke(
  thread: EvalThread,
  fn: StarFunction,
  locals: Array<Value | undefined>,
): Value {
  const code = fn.code;
  const entry = code.entry;
  if (entry !== null) return entry(thread, fn, locals);
  if (code.active > 0 && !thread.recursion) {
    throw new StarlarkError(`function ${code.name} called recursively`);
  }
  if (thread.depth >= thread.maxDepth) throw new StarlarkError('Starlark stack overflow');
  const cells = code.cellSlots;
  for (let i = 0; i < cells.length; i++) {
    const s = cells[i] as number;
    locals[s] = new Cell(locals[s]);
  }
  const frame: Frame = {
    pos: 0,
    ret: None,
    locals,
    free: fn.free,
    thread,
    file: code.file,
    fn: code.name,
  };
  if (++thread.stepCount >= thread.stepMark) thread.checkpoint();
  const frames = thread.frames;
  const h = thread.height;
  frames[h] = frame;
  thread.height = h + 1;
  thread.depth++;
  code.active++;
  // No `finally`: the unwinding is written out on both paths, which keeps this hot function small.
  try {
    code.body(frame);
  } catch (e) {
    const err = annotate(e, thread);
    frames[h] = undefined;
    thread.height = h;
    thread.depth--;
    code.active--;
    throw err;
  }
  frames[h] = undefined;
  thread.height = h;
  thread.depth--;
  code.active--;
  return frame.ret;
}

/**
 * Gives an error escaping a frame its call stack (captured once, at the innermost frame) and
 * turns host failures, such as JS stack exhaustion, into Starlark errors.
 */
export function annotate(e: unknown, thread: EvalThread): StarlarkError {
  let err: StarlarkError;
  if (e instanceof StarlarkError) err = e;
  else if (e instanceof Error && e.message.includes('call stack'))
    err = new StarlarkError('Starlark stack overflow');
  else if (e instanceof RangeError) err = new StarlarkError(`allocation failed: ${e.message}`);
  else {
    err = new StarlarkError(`internal error: ${e instanceof Error ? e.message : String(e)}`);
    (err as { cause?: unknown }).cause = e;
  }
  if (err.callStack === undefined) err.callStack = thread.callStack();
  return err;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Binds call arguments to parameter slots, with starlark-go's error messages. */
export function bindArgs(
  fn: StarFunction,
  args: Value[],
  kwargs: Array<[string, Value]> | null,
): Array<Value | undefined> {
  const code = fn.code;
  const sc = code.scope;
  const np = sc.numParams;
  const npos = np - sc.numKwonly;
  const n = args.length;
  const locals: Array<Value | undefined> = [];
  for (let i = 0; i < code.nlocals; i++) locals.push(undefined);
  if (n > npos && !sc.hasVarargs) {
    if (np === 0 && !sc.hasKwargs)
      throw new StarlarkError(`function ${fn.name} accepts no arguments (${n} given)`);
    const atMost = fn.defaults.some((d) => d !== undefined) ? 'at most ' : '';
    throw new StarlarkError(
      `function ${fn.name} accepts ${atMost}${plural(npos, 'positional argument')} (${n} given)`,
    );
  }
  const m = n < npos ? n : npos;
  for (let i = 0; i < m; i++) locals[i] = args[i];
  let slot = np;
  if (sc.hasVarargs) locals[slot++] = n > npos ? new Tuple(args.slice(npos)) : Tuple.empty;
  let kw: Dict | null = null;
  if (sc.hasKwargs) {
    kw = new Dict();
    locals[slot] = kw;
  }
  if (kwargs !== null) {
    for (const [k, v] of kwargs) {
      const j = code.paramIndex.get(k);
      if (j !== undefined) {
        if (locals[j] !== undefined)
          throw new StarlarkError(`function ${fn.name} got multiple values for parameter "${k}"`);
        locals[j] = v;
      } else if (kw !== null) {
        if (kw.get(k) !== undefined)
          throw new StarlarkError(`function ${fn.name} got multiple values for parameter "${k}"`);
        kw.set(k, v);
      } else {
        const hint = nearest(k, code.paramNames);
        throw new StarlarkError(
          `function ${fn.name} got an unexpected keyword argument ${k}${hint === null ? '' : ` (did you mean ${hint}?)`}`,
        );
      }
    }
  }
  let missing: string[] | null = null;
  for (let j = 0; j < np; j++) {
    if (locals[j] !== undefined) continue;
    const d = fn.defaults[j];
    if (d !== undefined) locals[j] = d;
    else (missing ??= []).push(code.paramNames[j] as string);
  }
  if (missing !== null) {
    throw new StarlarkError(
      `function ${fn.name} missing ${plural(missing.length, 'argument')} (${missing.join(', ')})`,
    );
  }
  return locals;
}
