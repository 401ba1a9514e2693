/**
 * State of one function being turned into JavaScript source. Generated code is straight-line
 * three-address code: every sub-expression lands in a temporary (`t3`), in source evaluation
 * order, so positions (`f.pos = …`) and short-circuits are plain statements.
 *
 * Nothing of the script's text is ever printed into the source: names, strings, big ints and
 * floats go to the constant table (`k3`), locals are slot numbers (`l3`), and the only numbers
 * printed are safe integers this compiler formats itself (`num`).
 */
import type * as A from '../syntax/ast.js';
import type { FunctionScope } from '../syntax/binding.js';
import { encodePos, type FnCtx } from './context.js';

/** Thrown while emitting when a construct has no generator: the function keeps its closures. */
export class Unsupported extends Error {}

export function unsupported(what: string): never {
  throw new Unsupported(what);
}

/** A safe integer as JS source. */
export function num(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`not a safe integer: ${n}`);
  return String(n);
}

export const MAX = '9007199254740991';

export class Emitter {
  readonly consts: unknown[] = [];
  private readonly constIndex = new Map<unknown, number>();
  private ntemps = 0;
  readonly lines: string[] = [];
  /** Number of leading slots (parameters, `*args`, `**kwargs`) that are always bound. */
  readonly boundSlots: number;
  /**
   * Local slots certainly bound at the point being emitted: assigned earlier in straight-line
   * code of this block or an enclosing one. A local is never unbound again once bound, so their
   * reads skip the unbound check; nested blocks (`branch`) forget what they add.
   */
  private assigned = new Set<number>();
  /** Atoms known to hold a JS boolean (comparison results), whose truth needs no test. */
  private readonly bools = new Set<string>();

  constructor(
    readonly c: FnCtx,
    readonly scope: FunctionScope,
  ) {
    this.boundSlots = scope.numParams + (scope.hasVarargs ? 1 : 0) + (scope.hasKwargs ? 1 : 0);
  }

  /** The constant `v`, as the name of its table entry. */
  k(v: unknown): string {
    let i = this.constIndex.get(v);
    if (i === undefined) {
      i = this.consts.length;
      this.consts.push(v);
      this.constIndex.set(v, i);
    }
    return `k${num(i)}`;
  }

  /** The value of a constant atom (`k3`), or undefined for any other atom. */
  constValue(a: string): unknown {
    const m = /^k([0-9]+)$/.exec(a);
    return m === null ? undefined : this.consts[Number(m[1])];
  }

  temp(): string {
    return `t${num(this.ntemps++)}`;
  }

  get tempCount(): number {
    return this.ntemps;
  }

  /** An atom usable before `.` or as a callee: an int literal is copied to a temporary. */
  obj(a: string): string {
    if (!/^[0-9]/.test(a)) return a;
    const t = this.temp();
    this.emit(`${t} = ${a};`);
    return t;
  }

  emit(line: string): void {
    this.lines.push(line);
  }

  pos(p: A.Pos): string {
    return num(encodePos(p));
  }

  /** A JS boolean expression for Starlark truth of an atom (evaluated twice: atoms are pure). */
  truthy(a: string): string {
    if (this.bools.has(a)) return a;
    return `(typeof ${a} === 'boolean' ? ${a} : truth(${a}))`;
  }

  markBool(a: string): void {
    this.bools.add(a);
  }

  isBound(slot: number): boolean {
    return slot < this.boundSlots || this.assigned.has(slot);
  }

  markBound(slot: number): void {
    this.assigned.add(slot);
  }

  /** Emits a nested block (a branch, a loop body): bindings made in it are not certain after it. */
  branch(emit: () => void): void {
    const saved = new Set(this.assigned);
    emit();
    this.assigned = saved;
  }
}

/**
 * Checks generated source against what the generator can print: identifiers, integers,
 * operators and a few fixed string literals. A last line of defence for the rule that no
 * script text reaches the source; a failure is an internal error, and the closures run instead.
 */
export function checkSource(src: string): boolean {
  const stripped = src.replace(/'(?:use strict|number|string|boolean|bigint)'/g, '');
  return /^[\w\s;,.(){}[\]=!<>&|^?:+\-*%/]*$/.test(stripped) && !/\/[/*]|\*\//.test(stripped);
}
