import {
  isCallable,
  StarlarkError,
  type Thread,
  type Value,
} from '../../../src/starlark/values/index.js';

/** Minimal Thread for calling builtins directly in unit tests. */
export class FakeThread implements Thread {
  readonly depth = 0;
  local = new Map<string, unknown>();
  printed: string[] = [];
  stepCount = 0;

  constructor(
    private readonly maxSteps = Infinity,
    private readonly maxAlloc = 1e7,
  ) {}

  call(fn: Value, args: Value[], kwargs: Array<[string, Value]> | null): Value {
    if (!isCallable(fn)) throw new StarlarkError('not callable');
    return fn.call(this, args, kwargs);
  }

  steps(n: number): void {
    this.stepCount += n;
    if (this.stepCount > this.maxSteps) throw new StarlarkError('too many steps');
  }

  alloc(n: number): void {
    if (n > this.maxAlloc) throw new StarlarkError(`allocation of ${n} elements too large`);
  }

  print(msg: string): void {
    this.printed.push(msg);
  }
}
