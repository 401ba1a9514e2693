/**
 * The binding half of the resolver: the chain of blocks (module, function, comprehension),
 * slot allocation, the global and file-local tables, and the deferred lookup that turns each
 * use of a name into a local, cell, free, global or predeclared binding. It knows nothing of
 * statement or expression forms; `resolver.ts` walks the tree and calls `bind`/`use` here,
 * which keeps starlark-go's scoping rules readable in one place.
 */
import type * as A from './ast.js';
import type { Binding, FunctionScope, Scope } from './binding.js';
import { StarlarkSyntaxError } from './errors.js';
import type { DialectOptions, ResolveEnv } from './resolve-options.js';
import { nearest } from './spell.js';

export interface Block {
  kind: 'module' | 'function' | 'comp';
  fn: FunctionScope;
  parent: Block | null;
  bindings: Map<string, Binding>;
  /** Comprehension blocks record their slots here. */
  owned: Binding[];
}

export abstract class ScopeResolver {
  readonly errors: StarlarkSyntaxError[] = [];
  readonly globals: Binding[] = [];
  private readonly globalMap = new Map<string, Binding>();
  private readonly fileLocals = new Map<string, Binding>();
  private readonly uses: Array<{ id: A.Ident; block: Block }> = [];
  protected block: Block;

  constructor(
    private readonly file: string,
    private readonly env: ResolveEnv,
    protected readonly opts: DialectOptions,
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
}
