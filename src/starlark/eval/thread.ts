import { StarlarkError, isCallable, typeName, type Thread, type Value } from '../values/index.js';
import type { DialectOptions } from '../syntax/resolve-options.js';

/** Resource limits of one execution. Every limit ends the run with a StarlarkError. */
export interface Limits {
  /** Execution steps (function calls, loop iterations, builtin work). */
  maxSteps?: number;
  /** Nested Starlark function calls. Kept well below what the JS stack can hold. */
  maxDepth?: number;
  /** Wall-clock budget in milliseconds, checked every few thousand steps. */
  timeoutMs?: number;
  /** Cancellation flag, checked with the deadline. */
  signal?: { readonly aborted: boolean };
  /** Largest single allocation (elements of a list, characters of a string). */
  maxAlloc?: number;
  /** Total characters that `print` may emit. */
  maxOutput?: number;
}

export const DEFAULT_LIMITS: Required<Omit<Limits, 'signal' | 'timeoutMs'>> = {
  maxSteps: 100_000_000,
  maxDepth: 400,
  maxAlloc: 50_000_000,
  maxOutput: 10_000_000,
};

/** How many steps pass between deadline and cancellation checks. */
const CHECK_EVERY = 4096;

/** A live call frame, as seen by tracebacks and host builtins. */
export interface FrameInfo {
  readonly file: string;
  readonly fn: string;
  /** Position of the operation in progress, encoded as `line * POS_SCALE + col`. */
  pos: number;
}

export const POS_SCALE = 65536;

export interface StackFrame {
  file: string;
  line: number;
  col: number;
  fn: string;
}

export function decodePos(f: FrameInfo): StackFrame {
  const line = Math.floor(f.pos / POS_SCALE);
  return { file: f.file, line, col: f.pos - line * POS_SCALE, fn: f.fn };
}

/** The evaluator's Thread: step accounting, limits, the print sink and the live frame stack. */
export class EvalThread implements Thread {
  stepCount = 0;
  /** Next step count at which `checkpoint` runs: a single comparison guards both limits on the hot path. */
  stepMark: number;
  depth = 0;
  output = 0;
  /**
   * The live call stack is `frames[0 .. height)`: calls store their frame at `height` and
   * restore `height` on the way out, rather than pushing and popping (two builtin calls per
   * Starlark call, which a cold run makes before V8 has optimised anything). Slots at or above
   * `height` are dead: a closure-compiled call clears its own; a generated call's slot keeps
   * its reused frame, which holds no locals.
   */
  readonly frames: Array<FrameInfo | undefined> = [];
  height = 0;
  /**
   * Generated functions' frame objects by stack height, reused call after call: a frame is
   * only ever reachable while its call is live (tracebacks copy positions out when an error
   * is annotated), and two live calls never share a height. Reuse spares a cold run one
   * allocation per call, and the scavenges that copy a program's young live data.
   */
  readonly genFrames: unknown[] = [];
  readonly local = new Map<string, unknown>();
  readonly maxSteps: number;
  readonly maxDepth: number;
  readonly maxAlloc: number;
  readonly maxOutput: number;
  /** `options.recursion`, read once: checked on every call of an active function. */
  readonly recursion: boolean;
  private readonly deadline: number;
  private readonly signal: { readonly aborted: boolean } | undefined;

  constructor(
    limits: Limits,
    readonly options: DialectOptions,
    private readonly printSink: (msg: string) => void,
  ) {
    this.maxSteps = limits.maxSteps ?? DEFAULT_LIMITS.maxSteps;
    this.maxDepth = limits.maxDepth ?? DEFAULT_LIMITS.maxDepth;
    this.maxAlloc = limits.maxAlloc ?? DEFAULT_LIMITS.maxAlloc;
    this.maxOutput = limits.maxOutput ?? DEFAULT_LIMITS.maxOutput;
    this.recursion = options.recursion === true;
    this.deadline = limits.timeoutMs === undefined ? Infinity : Date.now() + limits.timeoutMs;
    this.signal = limits.signal;
    this.stepMark = Math.min(this.maxSteps, CHECK_EVERY);
  }

  /** Called when the step counter reaches `stepMark`. */
  checkpoint(): void {
    if (this.stepCount > this.maxSteps)
      throw new StarlarkError(
        `Starlark computation exceeded the step limit (${this.maxSteps} steps)`,
      );
    if (this.signal?.aborted === true) throw new StarlarkError('Starlark computation cancelled');
    if (this.deadline !== Infinity && Date.now() > this.deadline)
      throw new StarlarkError('Starlark computation timed out');
    this.stepMark = Math.min(this.maxSteps + 1, this.stepCount + CHECK_EVERY);
  }

  call(fn: Value, args: Value[], kwargs: Array<[string, Value]> | null): Value {
    if (!isCallable(fn)) throw new StarlarkError(`invalid call of non-function (${typeName(fn)})`);
    return fn.call(this, args, kwargs);
  }

  steps(n: number): void {
    this.stepCount += n;
    if (this.stepCount >= this.stepMark) this.checkpoint();
  }

  alloc(n: number): void {
    if (n > this.maxAlloc)
      throw new StarlarkError(`allocation of ${n} elements exceeds the limit (${this.maxAlloc})`);
  }

  print(msg: string): void {
    this.output += msg.length + 1;
    if (this.output > this.maxOutput)
      throw new StarlarkError(`print output exceeds the limit (${this.maxOutput} characters)`);
    this.printSink(msg);
  }

  /** The live call stack, outermost first. */
  callStack(): StackFrame[] {
    const out: StackFrame[] = [];
    for (let i = 0; i < this.height; i++) out.push(decodePos(this.frames[i] as FrameInfo));
    return out;
  }
}
