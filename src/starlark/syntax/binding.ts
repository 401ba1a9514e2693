/**
 * Resolver output shared by the syntax tree and the compiler: where each name lives at run time.
 */
export type Scope =
  /** A slot in the current frame's locals array. */
  | 'local'
  /** A frame slot holding a `Cell`, because an inner function captures it. */
  | 'cell'
  /** An entry in the current function's captured cells. */
  | 'free'
  /** A slot in the module's globals array. */
  | 'global'
  /** A load binding visible only in this file (also a globals slot, not exported). */
  | 'filelocal'
  | 'predeclared'
  | 'universal'
  | 'undefined';

export interface Binding {
  scope: Scope;
  name: string;
  /** Slot index for local/cell/free/global/filelocal. */
  index: number;
  /** Where the name was first bound (for "declared at" messages). */
  line: number;
  col: number;
  /** For a free variable: the binding it refers to in the enclosing function. */
  outer: Binding | null;
}

/** A function's (or the module top level's, or a comprehension host's) frame layout. */
export interface FunctionScope {
  name: string;
  parent: FunctionScope | null;
  /** All frame slots: parameters first, then `*args`, `**kwargs`, then other locals. */
  locals: Binding[];
  freevars: Binding[];
  numParams: number;
  numKwonly: number;
  hasVarargs: boolean;
  hasKwargs: boolean;
}

export function newFunctionScope(name: string, parent: FunctionScope | null): FunctionScope {
  return {
    name,
    parent,
    locals: [],
    freevars: [],
    numParams: 0,
    numKwonly: 0,
    hasVarargs: false,
    hasKwargs: false,
  };
}
