/**
 * The syntax tree. Every node records the line and column (1-based) where errors about it
 * are reported; for operators and calls that is the operator or opening bracket.
 * The resolver annotates identifiers and functions in place (`binding`, `scope`).
 */
import type { Binding, FunctionScope } from './binding.js';

export interface Pos {
  line: number;
  col: number;
}

export interface Ident extends Pos {
  kind: 'Ident';
  name: string;
  binding: Binding | null;
}

export type LiteralValue =
  | { type: 'int'; v: number | bigint }
  | { type: 'float'; v: number }
  | { type: 'string'; v: string }
  | { type: 'bytes'; v: Uint8Array };

export interface Literal extends Pos {
  kind: 'Literal';
  value: LiteralValue;
}

export interface ListExpr extends Pos {
  kind: 'List';
  elems: Expr[];
}

export interface TupleExpr extends Pos {
  kind: 'Tuple';
  elems: Expr[];
}

export interface DictEntry extends Pos {
  key: Expr;
  value: Expr;
}

export interface DictExpr extends Pos {
  kind: 'Dict';
  entries: DictEntry[];
}

export interface ForClause extends Pos {
  kind: 'for';
  vars: Expr;
  iter: Expr;
}

export interface IfClause extends Pos {
  kind: 'if';
  cond: Expr;
}

export interface Comprehension extends Pos {
  kind: 'Comp';
  /** A dict comprehension has `body.kind === 'DictEntry'`-like shape via `dictBody`. */
  body: Expr | null;
  dictBody: DictEntry | null;
  clauses: Array<ForClause | IfClause>;
  /** Set by the resolver: the comprehension's own variables (frame slots of the enclosing function). */
  bindings: Binding[];
}

export interface UnaryExpr extends Pos {
  kind: 'Unary';
  op: string;
  x: Expr;
}

export interface BinaryExpr extends Pos {
  kind: 'Binary';
  op: string;
  x: Expr;
  y: Expr;
}

export interface CondExpr extends Pos {
  kind: 'Cond';
  cond: Expr;
  then: Expr;
  else: Expr;
}

export interface DotExpr extends Pos {
  kind: 'Dot';
  x: Expr;
  name: string;
}

export interface IndexExpr extends Pos {
  kind: 'Index';
  x: Expr;
  index: Expr;
}

export interface SliceExpr extends Pos {
  kind: 'Slice';
  x: Expr;
  lo: Expr | null;
  hi: Expr | null;
  step: Expr | null;
}

export interface Arg extends Pos {
  kind: 'pos' | 'named' | 'star' | 'starstar';
  name: string | null;
  value: Expr;
}

export interface CallExpr extends Pos {
  kind: 'Call';
  fn: Expr;
  args: Arg[];
}

export interface Param extends Pos {
  kind: 'plain' | 'default' | 'star' | 'starstar';
  /** Null for a bare `*`. */
  name: Ident | null;
  default: Expr | null;
}

export interface LambdaExpr extends Pos {
  kind: 'Lambda';
  params: Param[];
  body: Expr;
  scope: FunctionScope | null;
}

export interface ParenExpr extends Pos {
  kind: 'Paren';
  x: Expr;
}

export type Expr =
  | Ident
  | Literal
  | ListExpr
  | TupleExpr
  | DictExpr
  | Comprehension
  | UnaryExpr
  | BinaryExpr
  | CondExpr
  | DotExpr
  | IndexExpr
  | SliceExpr
  | CallExpr
  | LambdaExpr
  | ParenExpr;

export interface AssignStmt extends Pos {
  kind: 'Assign';
  /** `=` or an augmented operator such as `+=`. */
  op: string;
  lhs: Expr;
  rhs: Expr;
}

export interface ExprStmt extends Pos {
  kind: 'ExprStmt';
  x: Expr;
}

export interface DefStmt extends Pos {
  kind: 'Def';
  name: Ident;
  params: Param[];
  body: Stmt[];
  scope: FunctionScope | null;
}

export interface IfStmt extends Pos {
  kind: 'If';
  cond: Expr;
  then: Stmt[];
  else: Stmt[];
}

export interface ForStmt extends Pos {
  kind: 'For';
  vars: Expr;
  iter: Expr;
  body: Stmt[];
}

export interface WhileStmt extends Pos {
  kind: 'While';
  cond: Expr;
  body: Stmt[];
}

export interface ReturnStmt extends Pos {
  kind: 'Return';
  x: Expr | null;
}

export interface BranchStmt extends Pos {
  kind: 'break' | 'continue' | 'pass';
}

export interface LoadName extends Pos {
  local: Ident;
  orig: string;
}

export interface LoadStmt extends Pos {
  kind: 'Load';
  module: string;
  names: LoadName[];
}

export type Stmt =
  | AssignStmt
  | ExprStmt
  | DefStmt
  | IfStmt
  | ForStmt
  | WhileStmt
  | ReturnStmt
  | BranchStmt
  | LoadStmt;

export interface FileNode {
  file: string;
  stmts: Stmt[];
  /** Set by the resolver: slots of the module's top-level code (comprehension variables). */
  scope: FunctionScope | null;
}

/** The expression inside any parentheses around `e`. */
export function unparen(e: Expr): Expr {
  while (e.kind === 'Paren') e = e.x;
  return e;
}
