import { StarlarkError, StarlarkObject, type Value } from '../values/index.js';
import type { FileNode } from '../syntax/ast.js';
import { StarlarkStaticErrors } from '../syntax/errors.js';
import { parseFile } from '../syntax/parser.js';
import type { DialectOptions } from '../syntax/resolve-options.js';
import { resolveFile } from '../syntax/resolver.js';
import { compileBlock } from './compile-stmt.js';
import type { ModuleCtx } from './context.js';
import { Frame, annotate } from './function.js';
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

/** Parses, resolves, compiles and runs a module, then freezes its globals. */
export function execModule(opts: ExecOptions): ExecResult {
  const options = opts.options ?? {};
  const predeclared = toMap(opts.predeclared);
  const universe = toMap(opts.universe);
  const ast = parseFile(opts.file, opts.source);
  const resolved = resolveOrThrow(ast, predeclared, universe, options);
  const thread =
    opts.thread ?? new EvalThread(opts.limits ?? {}, options, opts.print ?? (() => {}));
  const globals: Array<Value | undefined> = resolved.globals.map(() => undefined);
  const load = opts.load;
  const mod: ModuleCtx = {
    file: opts.file,
    globals,
    globalBindings: resolved.globals,
    lookup: (n) => predeclared.get(n) ?? universe.get(n),
    loader: load === undefined ? null : (m, th) => toMap(load(m, th)),
  };
  const scope = ast.scope;
  if (scope === null) throw new Error('module not resolved');
  const body = compileBlock({ mod, scope }, ast.stmts);
  const locals: Array<Value | undefined> = scope.locals.map(() => undefined);
  const frame = new Frame(locals, [], thread, opts.file, '<toplevel>');
  thread.frames.push(frame);
  try {
    body(frame);
  } catch (e) {
    throw annotate(e, thread);
  } finally {
    thread.frames.pop();
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
}

export { StarlarkError };
