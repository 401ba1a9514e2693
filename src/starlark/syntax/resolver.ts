import type * as A from './ast.js';
import { newFunctionScope, type Binding, type FunctionScope } from './binding.js';
import type { StarlarkSyntaxError } from './errors.js';
import { checkCallArgs, checkParams } from './resolve-checks.js';
import type { DialectOptions, ResolveEnv } from './resolve-options.js';
import { ScopeResolver, type Block } from './resolve-scopes.js';

export interface ResolvedModule {
  /** One entry per module-level slot: globals and file-local load bindings. */
  globals: Binding[];
  errors: StarlarkSyntaxError[];
}

const KIND_NAMES: Record<string, string> = {
  Literal: 'literal',
  Binary: 'binaryexpr',
  Unary: 'unaryexpr',
  Call: 'callexpr',
  Cond: 'condexpr',
  Lambda: 'lambdaexpr',
  Comp: 'comprehension',
  Dict: 'dictexpr',
  Slice: 'sliceexpr',
};

/**
 * Static scoping, following starlark-go: resolves every identifier to a slot, reports every
 * error (not just the first), and annotates the tree for the compiler.
 */
class Resolver extends ScopeResolver {
  private loops = 0;
  private ifs = 0;

  stmts(list: A.Stmt[]): void {
    for (const s of list) this.stmt(s);
  }

  private topLevelCheck(s: A.Pos, what: string): void {
    if (this.block.kind === 'module' && this.opts.toplevelcontrol !== true)
      this.error(s, `${what} not within a function`);
  }

  private stmt(s: A.Stmt): void {
    switch (s.kind) {
      case 'ExprStmt':
        this.expr(s.x);
        return;
      case 'Assign':
        this.expr(s.rhs);
        this.assign(s.lhs, s.op !== '=');
        return;
      case 'Def':
        this.bind(s.name);
        s.scope = this.func(s.name.name, s.params, s, () => this.stmts(s.body));
        return;
      case 'If':
        this.topLevelCheck(s, 'if statement');
        this.expr(s.cond);
        this.ifs++;
        this.stmts(s.then);
        this.stmts(s.else);
        this.ifs--;
        return;
      case 'For':
        this.topLevelCheck(s, 'for loop');
        this.expr(s.iter);
        this.assign(s.vars, false);
        this.loops++;
        this.stmts(s.body);
        this.loops--;
        return;
      case 'While':
        if (this.opts.while !== true) this.error(s, 'dialect does not support while loops');
        this.topLevelCheck(s, 'while loop');
        this.expr(s.cond);
        this.loops++;
        this.stmts(s.body);
        this.loops--;
        return;
      case 'Return':
        if (this.block.kind === 'module') this.error(s, 'return statement not within a function');
        if (s.x !== null) this.expr(s.x);
        return;
      case 'break':
      case 'continue':
        if (this.loops === 0) this.error(s, `${s.kind} not in a loop`);
        return;
      case 'pass':
        return;
      case 'Load':
        this.load(s);
        return;
    }
  }

  private load(s: A.LoadStmt): void {
    if (this.block.kind !== 'module') this.error(s, 'load statement within a function');
    else if (this.ifs > 0) this.error(s, 'load statement within a conditional');
    else if (this.loops > 0) this.error(s, 'load statement within a loop');
    for (const n of s.names) {
      if (n.local.name === '' || n.orig === '') this.error(n, 'load: empty identifier');
      else if (n.orig.startsWith('_'))
        this.error(n, `load: names with leading underscores are not exported: ${n.orig}`);
      if (n.local.name !== '') this.bind(n.local, true);
    }
  }

  assign(lhs: A.Expr, augmented: boolean): void {
    switch (lhs.kind) {
      case 'Ident':
        if (augmented) this.use({ ...lhs });
        this.bind(lhs);
        return;
      case 'Index':
        this.expr(lhs.x);
        this.expr(lhs.index);
        return;
      case 'Dot':
        this.expr(lhs.x);
        return;
      case 'Paren':
        this.assign(lhs.x, augmented);
        return;
      case 'Tuple':
      case 'List':
        if (augmented) {
          this.error(
            lhs,
            `can't use ${lhs.kind === 'List' ? 'list' : 'tuple'} expression in augmented assignment`,
          );
          return;
        }
        for (const e of lhs.elems) this.assign(e, false);
        return;
      default:
        this.error(lhs, `can't assign to ${KIND_NAMES[lhs.kind] ?? lhs.kind.toLowerCase()}`);
    }
  }

  private func(name: string, params: A.Param[], pos: A.Pos, body: () => void): FunctionScope {
    for (const p of params) if (p.default !== null) this.expr(p.default);
    const fn = newFunctionScope(name, this.block.fn);
    const saved = { block: this.block, loops: this.loops, ifs: this.ifs };
    this.block = { kind: 'function', fn, parent: this.block, bindings: new Map(), owned: [] };
    this.loops = 0;
    this.ifs = 0;
    checkParams(this, params, fn);
    void pos;
    body();
    this.block = saved.block;
    this.loops = saved.loops;
    this.ifs = saved.ifs;
    return fn;
  }

  expr(e: A.Expr): void {
    switch (e.kind) {
      case 'Ident':
        this.use(e);
        return;
      case 'Literal':
        return;
      case 'List':
      case 'Tuple':
        for (const x of e.elems) this.expr(x);
        return;
      case 'Dict':
        for (const en of e.entries) {
          this.expr(en.key);
          this.expr(en.value);
        }
        return;
      case 'Comp':
        this.comprehension(e);
        return;
      case 'Unary':
      case 'Paren':
        this.expr(e.x);
        return;
      case 'Binary':
        this.expr(e.x);
        this.expr(e.y);
        return;
      case 'Cond':
        this.expr(e.cond);
        this.expr(e.then);
        this.expr(e.else);
        return;
      case 'Dot':
        this.expr(e.x);
        return;
      case 'Index':
        this.expr(e.x);
        this.expr(e.index);
        return;
      case 'Slice':
        this.expr(e.x);
        if (e.lo !== null) this.expr(e.lo);
        if (e.hi !== null) this.expr(e.hi);
        if (e.step !== null) this.expr(e.step);
        return;
      case 'Call':
        this.expr(e.fn);
        checkCallArgs(this, e.args);
        for (const a of e.args) this.expr(a.value);
        return;
      case 'Lambda':
        e.scope = this.func('lambda', e.params, e, () => this.expr(e.body));
        return;
    }
  }

  private comprehension(e: A.Comprehension): void {
    const [first, ...rest] = e.clauses;
    if (first === undefined || first.kind !== 'for') return;
    this.expr(first.iter);
    const saved = this.block;
    const blk: Block = {
      kind: 'comp',
      fn: saved.fn,
      parent: saved,
      bindings: new Map(),
      owned: [],
    };
    this.block = blk;
    this.assign(first.vars, false);
    for (const c of rest) {
      if (c.kind === 'for') {
        this.expr(c.iter);
        this.assign(c.vars, false);
      } else {
        this.expr(c.cond);
      }
    }
    if (e.body !== null) this.expr(e.body);
    if (e.dictBody !== null) {
      this.expr(e.dictBody.key);
      this.expr(e.dictBody.value);
    }
    this.block = saved;
    e.bindings = blk.owned;
  }
}

/** Resolves a parsed file in place. Returns every static error found (empty on success). */
export function resolveFile(
  file: A.FileNode,
  env: ResolveEnv,
  opts: DialectOptions,
): ResolvedModule {
  const moduleScope = newFunctionScope('<toplevel>', null);
  const r = new Resolver(file.file, env, opts, moduleScope);
  r.stmts(file.stmts);
  r.finish();
  file.scope = moduleScope;
  r.errors.sort((a, b) => a.line - b.line || a.col - b.col);
  return { globals: r.globals, errors: r.errors };
}
