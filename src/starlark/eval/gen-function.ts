/**
 * The code-generating backend: a `def` or `lambda` whose body uses only constructs the
 * generator knows becomes one JavaScript function, made with `new Function`, so that V8 tiers
 * up and optimises the script's function itself rather than the many small closures the
 * closure compiler builds for it. Any other function keeps its closure-compiled body.
 *
 * The generated function is the whole of `invoke` for its Code: recursion and depth checks,
 * one step per call, a frame on the thread's stack (its `pos` updated before each operation
 * that can fail, for error positions and call stacks) and the unwinding; its locals are JS
 * variables. Its direct entry takes the parameters as JS arguments, which callers in generated
 * code use when the arity matches; `entry` takes a bound locals array, for `invoke`.
 *
 * Functions with captured locals (cells) are not generated: their inner functions would need
 * the frame's locals array.
 */
import type * as A from '../syntax/ast.js';
import type { FunctionScope } from '../syntax/binding.js';
import { compileCode, type FunctionBody } from './compile-function.js';
import type { FnCtx } from './context.js';
import { Emitter, Unsupported, checkSource, num, unsupported } from './gen-emitter.js';
import { genExpr } from './gen-expr.js';
import { genRuntime } from './gen-runtime.js';
import { genBlock } from './gen-stmt.js';
import type { Code, GenEntry, GenFn } from './function.js';

/** Emits the creation of a nested function value (as `makeFunction`'s closure does). */
export function genMakeFunction(
  em: Emitter,
  name: string,
  params: A.Param[],
  scope: FunctionScope | null,
  _pos: A.Pos,
  body: FunctionBody,
): string {
  const parts = compileCode(em.c, name, params, scope, body);
  const defaults = parts.defaults.map((d) => (d === null ? 'undefined' : genExpr(em, d)));
  const dv = parts.defaults.every((d) => d === null)
    ? em.k(parts.defaults.map(() => undefined))
    : `[${defaults.join(', ')}]`;
  const free: string[] = [];
  for (const o of parts.outers) {
    if (o === null) continue;
    if (o.scope !== 'free') return unsupported('capture of a local');
    free.push(`fr[${num(o.index)}]`);
  }
  const t = em.temp();
  em.emit(`${t} = mkfn(${em.k(parts.code)}, ${dv}, [${free.join(', ')}]);`);
  return t;
}

export interface Generated {
  readonly direct: GenFn;
  readonly entry: GenEntry;
}

let bindings: string | null = null;

/**
 * Every helper, destructured from `R` by its name. Naming only those a body used meant finding
 * them in its text, a third of a warm compile; the 600 or so bytes that saved V8 from parsing
 * made no cold run faster (alternated runs of every `bench:starlark` program). An unused one is
 * a local of the factory that no closure holds. A helper named like one of the factory's own
 * bindings would fail every function's `new Function`: test/starlark/eval/codegen.test.ts sees
 * functions fall back to closures.
 */
function runtimeBindings(): string {
  bindings ??= `const { ${Object.keys(genRuntime()).join(', ')} } = R;`;
  return bindings;
}

function assemble(em: Emitter, nslots: number, nlocals: number): string {
  const params = Array.from({ length: nslots }, (_, i) => `l${num(i)}`);
  const lets = [
    ...Array.from({ length: nlocals - nslots }, (_, i) => `l${num(i + nslots)}`),
    ...Array.from({ length: em.tempCount }, (_, i) => `t${num(i)}`),
  ];
  const consts = em.consts.map((_, i) => `k${num(i)} = K[${num(i)}]`);
  const body = [
    `const direct = function (${['th', 'fn', ...params].join(', ')}) {`,
    lets.length > 0 ? `let ${lets.join(', ')};` : '',
    `const fr = fn.free;`,
    `const act = code.active;`,
    `if (act > 0 && !th.recursion) recursive(code);`,
    `const dep = th.depth;`,
    `if (dep >= th.maxDepth) overflow();`,
    `step(th);`,
    // The frame at this height is reused (`EvalThread.genFrames`). A generated body never sets
    // `ret` or `locals` (it returns, and its locals are JS variables), so a reused frame keeps
    // theirs. The read is guarded: an optimised function reading past the end (its first call
    // deeper than any before) was deoptimised, and every activation of it on the stack.
    `const ht = th.height, gfs = th.genFrames;`,
    `const f = ht < gfs.length ? gfs[ht] : genFrame(th, ht);`,
    `f.pos = 0; f.free = fr; f.file = code.file; f.fn = code.name;`,
    `th.frames[ht] = f;`,
    `th.height = ht + 1;`,
    `th.depth = dep + 1;`,
    `code.active = act + 1;`,
    `try {`,
    ...em.lines,
    `return None;`,
    `} catch (e) {`,
    `throw annotate(e, th);`,
    `} finally {`,
    `th.height = ht;`,
    `th.depth = dep;`,
    `code.active = act;`,
    `}`,
    `};`,
    `const entry = function (th, fn, L) {`,
    `return direct(${['th', 'fn', ...params.map((_, i) => `L[${num(i)}]`)].join(', ')});`,
    `};`,
    `return [direct, entry];`,
  ].join('\n');
  return [
    `'use strict';`,
    runtimeBindings(),
    consts.length > 0 ? `const ${consts.join(', ')};` : '',
    body,
  ].join('\n');
}

/** Generated code for `code`'s body, or null when some construct in it has no generator. */
export function generateBody(c: FnCtx, code: Code, body: FunctionBody): Generated | null {
  const scope = c.scope;
  if (scope.locals.some((b) => b.scope === 'cell')) return null;
  const em = new Emitter(c, scope);
  try {
    if (body.kind === 'expr') {
      const v = genExpr(em, body.body);
      em.emit(`return ${v};`);
    } else genBlock(em, body.body);
  } catch (e) {
    if (e instanceof Unsupported) return null;
    throw e;
  }
  const src = assemble(em, em.boundSlots, scope.locals.length);
  if (!checkSource(src)) throw new Error('generated source failed its check');
  let factory: (...a: unknown[]) => [GenFn, GenEntry];
  try {
    // The point of this backend; `checkSource` above holds the rule that no script text is in `src`.
    factory = new Function('K', 'R', 'code', 'G', 'PRE', src) as typeof factory;
  } catch {
    // A generator bug, or a host that forbids code generation from strings, must not stop the
    // script: its closures run it instead.
    return null;
  }
  const [direct, entry] = factory(em.consts, genRuntime(), code, c.mod.globals, c.mod.predeclared);
  return { direct, entry };
}
