import { StarlarkError, StarlarkObject, type Value } from '../values/index.js';
import type { FileNode } from '../syntax/ast.js';
import { StarlarkStaticErrors } from '../syntax/errors.js';
import { parseFile } from '../syntax/parser.js';
import type { DialectOptions } from '../syntax/resolve-options.js';
import { resolveFile } from '../syntax/resolver.js';
import { compileBlock } from './compile-stmt.js';
import type { ModuleCtx } from './context.js';
import { annotate, newFrame } from './function.js';
import { EvalThread, type Limits } from './thread.js';

export type ValueMap = ReadonlyMap<string, Value> | Readonly<Record<string, Value>>;

/** Resolves `load(module, ...)`: returns the loaded module's members. */
export type LoadFn = (module: string, thread: EvalThread) => ValueMap;

export interface ExecOptions {
  /** Name used in positions and tracebacks. */
  file: string;
  source: string;
  /** Host values visible to the program (the only way it reaches the host). */
  predeclared?: ValueMap;
  /** Builtins (`len`, `dict`, ...); the host supplies the universe for its dialect. */
  universe: ValueMap;
  options?: DialectOptions;
  limits?: Limits;
  print?: (msg: string) => void;
  load?: LoadFn;
  /** Runs on an existing thread (nested loads share limits and the step counter). */
  thread?: EvalThread;
  /** False compiles every function to closures (see gen-function.ts); default true. */
  codegen?: boolean;
}

export interface ExecResult {
  /** The module's globals, frozen. File-local load bindings are not included. */
  globals: Map<string, Value>;
  thread: EvalThread;
}

export function toMap(m: ValueMap | undefined): ReadonlyMap<string, Value> {
  if (m === undefined) return new Map();
  if (m instanceof Map) return m;
  return new Map(Object.entries(m as Record<string, Value>));
}

/** Resolves a parsed file against predeclared and universal names; throws StarlarkStaticErrors. */
export function resolveOrThrow(
  ast: FileNode,
  predeclared: ReadonlyMap<string, Value>,
  universe: ReadonlyMap<string, Value>,
  options: DialectOptions,
): ReturnType<typeof resolveFile> {
  const resolved = resolveFile(
    ast,
    {
      isPredeclared: (n) => predeclared.has(n),
      isUniversal: (n) => universe.has(n),
      names: () => [...predeclared.keys(), ...universe.keys()],
    },
    options,
  );
  if (resolved.errors.length > 0) throw new StarlarkStaticErrors(resolved.errors);
  return resolved;
}

export interface CompileOptions {
  /** Name used in positions and tracebacks. */
  file: string;
  source: string;
  /** Names of the host values each run will supply (their values may differ per run). */
  predeclared: Iterable<string>;
  /** Builtins (`len`, `dict`, ...); the host supplies the universe for its dialect. */
  universe: ValueMap;
  options?: DialectOptions;
  load?: LoadFn;
  /** False compiles every function to closures (see gen-function.ts); default true. */
  codegen?: boolean;
}

export interface RunOptions {
  /** A value for every name the program was compiled with. */
  predeclared?: ValueMap;
  limits?: Limits;
  print?: (msg: string) => void;
  /** Runs on an existing thread (nested loads share limits and the step counter). */
  thread?: EvalThread;
}

/**
 * A module parsed, resolved and compiled once, run any number of times, one run at a time: each
 * run starts from unbound globals and its own host values, so nothing of one run is seen by the
 * next. Worth keeping when the same text runs again (a worker thread's cache by script hash).
 */
export interface Program {
  readonly file: string;
  readonly source: string;
  /** Runs the top level. Its functions stay callable (with its thread) until `release`. */
  run(opts?: RunOptions): ExecResult;
  /** Ends a run: drops its host values and globals, so a cached program holds nothing of it. */
  release(): void;
}

/** Parses, resolves and compiles a module; throws StarlarkSyntaxError or StarlarkStaticErrors. */
export function compileProgram(opts: CompileOptions): Program {
  const options = opts.options ?? {};
  const names = [...new Set(opts.predeclared)];
  const slots = new Map(names.map((n, i) => [n, i]));
  const universe = toMap(opts.universe);
  const ast = parseFile(opts.file, opts.source);
  const resolved = resolveFile(
    ast,
    {
      isPredeclared: (n) => slots.has(n),
      isUniversal: (n) => universe.has(n),
      names: () => [...names, ...universe.keys()],
    },
    options,
  );
  if (resolved.errors.length > 0) throw new StarlarkStaticErrors(resolved.errors);
  const globals: Array<Value | undefined> = resolved.globals.map(() => undefined);
  const predeclared: Array<Value | undefined> = names.map(() => undefined);
  const load = opts.load;
  const mod: ModuleCtx = {
    file: opts.file,
    globals,
    globalBindings: resolved.globals,
    predeclaredSlot: (n) => slots.get(n),
    predeclared,
    lookup: (n) => universe.get(n),
    loader: load === undefined ? null : (m, th) => toMap(load(m, th)),
    codegen: opts.codegen ?? true,
  };
  const scope = ast.scope;
  if (scope === null) throw new Error('module not resolved');
  const body = compileBlock({ mod, scope }, ast.stmts);
  let running = false;

  return {
    file: opts.file,
    source: opts.source,
    run(run: RunOptions = {}): ExecResult {
      if (running) throw new StarlarkError(`${opts.file} is already running`);
      running = true;
      const values = toMap(run.predeclared);
      for (const [name, i] of slots) {
        const v = values.get(name);
        if (v === undefined) throw new Error(`predeclared value ${name} missing`);
        predeclared[i] = v;
      }
      globals.fill(undefined);
      const thread =
        run.thread ?? new EvalThread(run.limits ?? {}, options, run.print ?? (() => {}));
      const locals: Array<Value | undefined> = scope.locals.map(() => undefined);
      const frame = newFrame(locals, [], thread, opts.file, '<toplevel>');
      const h = thread.height;
      thread.frames[h] = frame;
      thread.height = h + 1;
      try {
        body(frame);
      } catch (e) {
        throw annotate(e, thread);
      } finally {
        thread.frames[h] = undefined;
        thread.height = h;
      }
      const out = new Map<string, Value>();
      resolved.globals.forEach((b, i) => {
        const v = globals[i];
        if (b.scope === 'global' && v !== undefined) {
          if (v instanceof StarlarkObject) v.freeze();
          out.set(b.name, v);
        }
      });
      return { globals: out, thread };
    },
    release() {
      predeclared.fill(undefined);
      globals.fill(undefined);
      running = false;
    },
  };
}

/** Parses, resolves, compiles and runs a module once, then freezes its globals. */
export function execModule(opts: ExecOptions): ExecResult {
  const predeclared = toMap(opts.predeclared);
  return compileProgram({
    file: opts.file,
    source: opts.source,
    predeclared: predeclared.keys(),
    universe: opts.universe,
    ...(opts.options ? { options: opts.options } : {}),
    ...(opts.load ? { load: opts.load } : {}),
    ...(opts.codegen !== undefined ? { codegen: opts.codegen } : {}),
  }).run({
    predeclared,
    ...(opts.limits ? { limits: opts.limits } : {}),
    ...(opts.print ? { print: opts.print } : {}),
    ...(opts.thread ? { thread: opts.thread } : {}),
  });
}

export { StarlarkError };
