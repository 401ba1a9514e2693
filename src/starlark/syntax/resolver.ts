import type * as A from './ast.js';
import { newFunctionScope, type Binding, type FunctionScope, type Scope } from './binding.js';
import { StarlarkSyntaxError } from './errors.js';
import { checkCallArgs, checkParams } from './resolve-checks.js';
import { nearest } from './spell.js';

export interface DialectOptions {
  set?: boolean;
  while?: boolean;
  toplevelcontrol?: boolean;
  globalreassign?: boolean;
  loadbindsglobally?: boolean;
  recursion?: boolean;
}

export interface ResolveEnv {
  isPredeclared(name: string): boolean;
  isUniversal(name: string): boolean;
  /** Names offered as spelling hints besides the file's own. */
  names(): Iterable<string>;
}

export interface ResolvedModule {
  /** One entry per module-level slot: globals and file-local load bindings. */
  globals: Binding[];
  errors: StarlarkSyntaxError[];
}

interface Block {
  kind: 'module' | 'function' | 'comp';
  fn: FunctionScope;
  parent: Block | null;
  bindings: Map<string, Binding>;
  /** Comprehension blocks record their slots here. */
  owned: Binding[];
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
class Resolver {
  readonly errors: StarlarkSyntaxError[] = [];
  readonly globals: Binding[] = [];
  private readonly globalMap = new Map<string, Binding>();
  private readonly fileLocals = new Map<string, Binding>();
  private readonly uses: Array<{ id: A.Ident; block: Block }> = [];
  private block: Block;
  private loops = 0;
  private ifs = 0;

  constructor(
    private readonly file: string,
    private readonly env: ResolveEnv,
    private readonly opts: DialectOptions,
    moduleScope: FunctionScope,
  ) {
    this.block = { kind: 'module', fn: moduleScope, parent: null, bindings: new Map(), owned: [] };
  }

  error(p: A.Pos, msg: string): void {
    this.errors.push(new StarlarkSyntaxError(this.file, p.line, p.col, msg));
  }

  private at(b: Binding): string {
    return `${this.file}:${b.line}:${b.col}`;
  }

  private newSlot(scope: Scope, id: A.Ident, fn: FunctionScope | null): Binding {
    const b: Binding = { scope, name: id.name, index: 0, line: id.line, col: id.col, outer: null };
    if (fn === null) {
      b.index = this.globals.length;
      this.globals.push(b);
    } else {
      b.index = fn.locals.length;
      fn.locals.push(b);
    }
    return b;
  }

  /** Binds a name in the current block; returns true if it was already bound there. */
  bind(id: A.Ident, isLoad = false): boolean {
    const blk = this.block;
    if (blk.kind !== 'module') {
      const prev = blk.bindings.get(id.name);
      if (prev !== undefined) {
        id.binding = prev;
        return true;
      }
      const b = this.newSlot('local', id, blk.fn);
      blk.bindings.set(id.name, b);
      if (blk.kind === 'comp') blk.owned.push(b);
      id.binding = b;
      return false;
    }
    const reassign = this.opts.globalreassign === true;
    if (isLoad && this.opts.loadbindsglobally !== true) {
      const prev = this.fileLocals.get(id.name) ?? this.globalMap.get(id.name);
      if (prev !== undefined) {
        if (!reassign) this.error(id, `cannot reassign top-level ${id.name}`);
        id.binding = prev;
        return true;
      }
      const b = this.newSlot('filelocal', id, null);
      this.fileLocals.set(id.name, b);
      id.binding = b;
      return false;
    }
    const prevGlobal = this.globalMap.get(id.name);
    if (prevGlobal !== undefined) {
      if (!reassign)
        this.error(id, `cannot reassign global ${id.name} declared at ${this.at(prevGlobal)}`);
      id.binding = prevGlobal;
      return true;
    }
    const prevLocal = this.fileLocals.get(id.name);
    if (prevLocal !== undefined) {
      if (!reassign)
        this.error(id, `cannot reassign local ${id.name} declared at ${this.at(prevLocal)}`);
      id.binding = prevLocal;
      return true;
    }
    const b = this.newSlot('global', id, null);
    this.globalMap.set(id.name, b);
    id.binding = b;
    return false;
  }

  use(id: A.Ident): void {
    if (this.opts.globalreassign === true && this.block.kind === 'module') {
      id.binding = this.lookupTop(id, this.block);
      return;
    }
    this.uses.push({ id, block: this.block });
  }

  /** Resolves the deferred uses, now that every block's bindings are known. */
  finish(): void {
    for (const { id, block } of this.uses) id.binding = this.lookup(id, block);
  }

  private lookup(id: A.Ident, from: Block): Binding {
    for (let b: Block | null = from; b !== null && b.kind !== 'module'; b = b.parent) {
      const found = b.bindings.get(id.name);
      if (found !== undefined) return this.capture(from.fn, found);
    }
    return this.lookupTop(id, from);
  }

  /** Makes `bind` (a local of some enclosing function) reachable from `fn` through free variables. */
  private capture(fn: FunctionScope, bind: Binding): Binding {
    if (fn.locals[bind.index] === bind && (bind.scope === 'local' || bind.scope === 'cell'))
      return bind;
    const parent = fn.parent;
    if (parent === null) return bind;
    const outer = this.capture(parent, bind);
    if (outer.scope === 'local') outer.scope = 'cell';
    let free = fn.freevars.find((f) => f.outer === outer);
    if (free === undefined) {
      free = {
        scope: 'free',
        name: bind.name,
        index: fn.freevars.length,
        line: bind.line,
        col: bind.col,
        outer,
      };
      fn.freevars.push(free);
    }
    return free;
  }

  private lookupTop(id: A.Ident, from: Block): Binding {
    const name = id.name;
    const found = this.fileLocals.get(name) ?? this.globalMap.get(name);
    if (found !== undefined) return found;
    const mk = (scope: Scope): Binding => ({
      scope,
      name,
      index: 0,
      line: id.line,
      col: id.col,
      outer: null,
    });
    if (this.env.isPredeclared(name)) return mk('predeclared');
    if (this.env.isUniversal(name)) return mk('universal');
    const names = new Set<string>(this.env.names());
    for (const k of this.globalMap.keys()) names.add(k);
    for (const k of this.fileLocals.keys()) names.add(k);
    for (let b: Block | null = from; b !== null; b = b.parent)
      for (const k of b.bindings.keys()) names.add(k);
    const hint = nearest(name, names);
    this.error(id, `undefined: ${name}${hint === null ? '' : ` (did you mean ${hint}?)`}`);
    return mk('undefined');
  }

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

export type ResolverApi = Pick<Resolver, 'error' | 'bind'>;

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
