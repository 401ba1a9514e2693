/**
 * Steward's Starlark interpreter: the host API. The interpreter reaches nothing of the host
 * except the predeclared values passed in; every limit ends a run with a Starlark error.
 */
import { StarlarkError, type Value } from './values/index.js';
import type { FileNode } from './syntax/ast.js';
import { StarlarkStaticErrors, StarlarkSyntaxError } from './syntax/errors.js';
import { parseFile } from './syntax/parser.js';
import type { DialectOptions } from './syntax/resolve-options.js';
import { resolveFile } from './syntax/resolver.js';
import { StarlarkExecError } from './eval/errors.js';
import {
  compileProgram,
  execModule as execRaw,
  toMap,
  type LoadFn,
  type ValueMap,
} from './eval/exec.js';
import { StarFunction, annotate } from './eval/function.js';
import { EvalThread, type Limits } from './eval/thread.js';
import { defaultUniverse } from './eval/universe.js';

export type { FileNode, DialectOptions, Limits, LoadFn, ValueMap };
export {
  StarlarkSyntaxError,
  StarlarkStaticErrors,
  StarlarkExecError,
  StarlarkError,
  StarFunction,
  EvalThread,
};
export { DEFAULT_LIMITS, type StackFrame } from './eval/thread.js';
export { formatTraceback } from './eval/errors.js';
export { defaultUniverse };
/** The `json` module scripts get, and its encoder for host modules that send JSON. */
export { encodeJSON, jsonModule } from './lib/index.js';
export * from './values/index.js';

/** Steward's defaults: recursion and `while` are off (see README.md). */
export const STEWARD_DIALECT: DialectOptions = { set: true };

/** Parses a file. Throws StarlarkSyntaxError, whose message is `file:line:col: message`. */
export function parse(file: string, src: string, _options: DialectOptions = {}): FileNode {
  return parseFile(file, src);
}

export interface ResolveOnlyOptions {
  predeclared?: Iterable<string>;
  /** Universal names; defaults to the standard builtins. */
  universe?: Iterable<string>;
  options?: DialectOptions;
}

/** Parses and resolves without running. Returns every static error (a parse error alone if parsing fails). */
export function check(
  file: string,
  src: string,
  opts: ResolveOnlyOptions = {},
): StarlarkSyntaxError[] {
  let ast: FileNode;
  try {
    ast = parseFile(file, src);
  } catch (e) {
    if (e instanceof StarlarkSyntaxError) return [e];
    throw e;
  }
  const pre = new Set(opts.predeclared ?? []);
  const uni = new Set(opts.universe ?? defaultUniverse().keys());
  return resolveFile(
    ast,
    {
      isPredeclared: (n) => pre.has(n),
      isUniversal: (n) => uni.has(n),
      names: () => [...pre, ...uni],
    },
    opts.options ?? STEWARD_DIALECT,
  ).errors;
}

export interface ExecModuleOptions {
  file: string;
  source: string;
  predeclared?: ValueMap;
  /** Defaults to the standard builtins. */
  universe?: ValueMap;
  options?: DialectOptions;
  limits?: Limits;
  print?: (msg: string) => void;
  load?: LoadFn;
  /** False keeps every function on the closure compiler (for comparing backends); default true. */
  codegen?: boolean;
}

export interface ModuleResult {
  /** Frozen global values. */
  globals: Map<string, Value>;
  /** Execution steps used (deterministic for a given program and inputs). */
  steps: number;
  /** The thread, for calling the module's functions later with `callFunction`. */
  thread: EvalThread;
}

/**
 * Runs a module. Throws StarlarkSyntaxError (parse), StarlarkStaticErrors (resolve, all errors)
 * or StarlarkExecError (runtime: bare message, call stack, traceback).
 */
export function execModule(opts: ExecModuleOptions): ModuleResult {
  try {
    const r = execRaw({
      ...opts,
      universe: opts.universe ?? defaultUniverse(),
      options: opts.options ?? STEWARD_DIALECT,
    });
    return { globals: r.globals, steps: r.thread.stepCount, thread: r.thread };
  } catch (e) {
    throw hostError(e);
  }
}

export interface CompileModuleOptions {
  file: string;
  source: string;
  /** Names of the host values every run supplies. */
  predeclared: Iterable<string>;
  /** Defaults to the standard builtins. */
  universe?: ValueMap;
  options?: DialectOptions;
  load?: LoadFn;
  /** False keeps every function on the closure compiler (for comparing backends); default true. */
  codegen?: boolean;
}

export interface ModuleRunOptions {
  /** A value for each name the module was compiled with. */
  predeclared: ValueMap;
  limits?: Limits;
  print?: (msg: string) => void;
}

/** A module compiled once and run many times, one run at a time (see `Program` in eval/exec). */
export interface CompiledModule {
  readonly file: string;
  readonly source: string;
  run(opts: ModuleRunOptions): ModuleResult;
  /** Ends a run; call it once the run's functions and globals are no longer used. */
  release(): void;
}

/**
 * Parses, resolves and compiles without running. Throws StarlarkSyntaxError or
 * StarlarkStaticErrors; a run throws StarlarkExecError, as `execModule` does.
 */
export function compileModule(opts: CompileModuleOptions): CompiledModule {
  let program: ReturnType<typeof compileProgram>;
  try {
    program = compileProgram({
      ...opts,
      universe: opts.universe ?? defaultUniverse(),
      options: opts.options ?? STEWARD_DIALECT,
    });
  } catch (e) {
    throw hostError(e);
  }
  return {
    file: program.file,
    source: program.source,
    run(run) {
      try {
        const r = program.run(run);
        return { globals: r.globals, steps: r.thread.stepCount, thread: r.thread };
      } catch (e) {
        throw hostError(e);
      }
    },
    release: () => program.release(),
  };
}

function hostError(e: unknown): unknown {
  if (e instanceof StarlarkError) return new StarlarkExecError(e);
  return e;
}

export interface CallOptions {
  limits?: Limits;
  print?: (msg: string) => void;
  options?: DialectOptions;
}

/** Calls a Starlark callable (e.g. a function from a module's globals) on a new or given thread. */
export function callFunction(
  fn: Value,
  args: Value[],
  kwargs: Array<[string, Value]> | Record<string, Value> | null,
  thread: EvalThread | CallOptions = {},
): Value {
  const th =
    thread instanceof EvalThread
      ? thread
      : new EvalThread(
          thread.limits ?? {},
          thread.options ?? STEWARD_DIALECT,
          thread.print ?? (() => {}),
        );
  const kw = kwargs === null ? null : Array.isArray(kwargs) ? kwargs : Object.entries(kwargs);
  try {
    try {
      return th.call(fn, args, kw);
    } catch (e) {
      throw annotate(e, th);
    }
  } catch (e) {
    throw hostError(e);
  }
}

export { toMap };
