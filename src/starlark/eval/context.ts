import type { Value } from '../values/index.js';
import type { Binding, FunctionScope } from '../syntax/binding.js';
import type { Pos } from '../syntax/ast.js';
import type { EvalThread } from './thread.js';
import { POS_SCALE } from './thread.js';

/** Resolves `load(module, ...)` for a program: returns the module's members. */
export type Loader = (module: string, thread: EvalThread) => ReadonlyMap<string, Value>;

/** Per-module compilation state shared by all closures of one program. */
export interface ModuleCtx {
  readonly file: string;
  /** Module-level slots (globals and file-local load bindings); undefined means unbound. */
  readonly globals: Array<Value | undefined>;
  readonly globalBindings: readonly Binding[];
  /**
   * Slot of a predeclared (host) name in `predeclared`. Host values change from run to run of a
   * compiled program (the run's arguments, its HTTP bridge), so they are read from the slot.
   */
  predeclaredSlot(name: string): number | undefined;
  /** This run's host values, by slot; refilled before each run. */
  readonly predeclared: Array<Value | undefined>;
  /** Universal builtin by name: the same in every run, so compiled in as a constant. */
  lookup(name: string): Value | undefined;
  readonly loader: Loader | null;
  /** Whether functions may get generated code (gen-function.ts); false keeps every closure. */
  readonly codegen: boolean;
}

/** Compilation state of one function (or the module's top level). */
export interface FnCtx {
  readonly mod: ModuleCtx;
  readonly scope: FunctionScope;
}

export function encodePos(p: Pos): number {
  return p.line * POS_SCALE + Math.min(p.col, POS_SCALE - 1);
}
