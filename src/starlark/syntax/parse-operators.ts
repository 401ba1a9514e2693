/**
 * The upper levels of the expression grammar: bare tuples, conditional expressions, lambdas
 * (with their parameter lists, which `def` reuses) and binary and unary operators by
 * precedence. Everything below a unary operator (operands, calls, indexing, displays,
 * comprehensions) is in `parse-expr.ts`, which extends this class; the two halves meet at
 * `parsePrimaryWithSuffix` going down and `parseTest`/`parseBinary` coming back up.
 */
import type * as A from './ast.js';
import { TokenCursor } from './parse-cursor.js';
import { describeKind } from './tokens.js';

// Binary operator precedence; `not` (unary) sits at level 2 between `and` and comparisons.
const PREC = new Map<string, number>([
  ['or', 0],
  ['and', 1],
  ['==', 3],
  ['!=', 3],
  ['<', 3],
  ['>', 3],
  ['<=', 3],
  ['>=', 3],
  ['in', 3],
  ['not in', 3],
  ['|', 4],
  ['^', 5],
  ['&', 6],
  ['<<', 7],
  ['>>', 7],
  ['+', 8],
  ['-', 8],
  ['*', 9],
  ['/', 9],
  ['//', 9],
  ['%', 9],
]);
const NOT_PREC = 2;
const CMP_PREC = 3;

export const EXPR_LIST_END = new Set(['EOF', 'NEWLINE', '=', '}', ']', ')', ';']);

export abstract class OperatorParser extends TokenCursor {
  protected abstract parsePrimaryWithSuffix(): A.Expr;

  /** `Test {',' Test}`: a bare tuple when there is a comma. */
  parseExpr(inParens: boolean): A.Expr {
    const first = this.tok;
    const x = this.parseTest();
    if (this.kind() !== ',') return x;
    const elems = [x];
    while (this.kind() === ',') {
      const comma = this.next();
      if (EXPR_LIST_END.has(this.kind())) {
        if (!inParens) this.fail(comma, 'unparenthesized tuple with trailing comma');
        break;
      }
      elems.push(this.parseTest());
    }
    return { kind: 'Tuple', elems, line: first.line, col: first.col };
  }

  parseTest(): A.Expr {
    if (this.kind() === 'lambda') return this.parseLambda(true);
    const x = this.parseBinary(0);
    if (this.kind() !== 'if') return x;
    const ifTok = this.next();
    const cond = this.parseBinary(0);
    if (this.kind() !== 'else') this.fail(ifTok, 'conditional expression without else clause');
    this.next();
    const otherwise = this.parseTest();
    return { kind: 'Cond', cond, then: x, else: otherwise, line: ifTok.line, col: ifTok.col };
  }

  /** A test without an unparenthesized conditional, as comprehension `if` clauses and their lambdas need. */
  protected parseTestNoCond(): A.Expr {
    if (this.kind() === 'lambda') return this.parseLambda(false);
    return this.parseBinary(0);
  }

  private parseLambda(allowCond: boolean): A.Expr {
    const t = this.next();
    this.enter(t);
    const params = this.parseParams(':');
    this.expect(':');
    const body = allowCond ? this.parseTest() : this.parseTestNoCond();
    this.leave();
    return { kind: 'Lambda', params, body, scope: null, line: t.line, col: t.col };
  }

  protected parseParams(closer: string): A.Param[] {
    const params: A.Param[] = [];
    while (this.kind() !== closer && this.kind() !== 'EOF') {
      if (params.length > 0) {
        this.expect(',');
        if (this.kind() === closer) break;
      }
      const t = this.tok;
      if (t.kind === '*' || t.kind === '**') {
        this.next();
        const name = t.kind === '**' || this.kind() === 'IDENT' ? this.ident() : null;
        params.push({
          kind: t.kind === '*' ? 'star' : 'starstar',
          name,
          default: null,
          line: t.line,
          col: t.col,
        });
        continue;
      }
      const name = this.ident();
      if (this.kind() === '=') {
        this.next();
        params.push({ kind: 'default', name, default: this.parseTest(), line: t.line, col: t.col });
      } else {
        params.push({ kind: 'plain', name, default: null, line: t.line, col: t.col });
      }
    }
    return params;
  }

  /**
   * Binary operators by precedence climbing: an operand, then each operator binding at least as
   * tightly as `prec`, its right side parsed one level tighter (all associate to the left, and
   * comparisons not at all). One call per operand where a call per precedence level took every
   * plain operand ten calls down: the `bench:starlark` programs parse in 0.40–0.58 of the time.
   */
  protected parseBinary(prec: number): A.Expr {
    let x: A.Expr;
    if (prec <= NOT_PREC && this.kind() === 'not') {
      const t = this.next();
      this.enter(t);
      const operand = this.parseBinary(NOT_PREC);
      this.leave();
      x = { kind: 'Unary', op: 'not', x: operand, line: t.line, col: t.col };
    } else {
      x = this.parseUnary();
    }
    let lastCmp: string | null = null;
    for (;;) {
      const t = this.tok;
      let op = t.kind;
      const level = op === 'not' ? CMP_PREC : PREC.get(op);
      if (level === undefined || level < prec) return x;
      if (op === 'not') {
        this.next();
        if (this.kind() !== 'in') this.fail(this.tok, `got ${describeKind(this.kind())}, want in`);
        op = 'not in';
      }
      if (level === CMP_PREC && lastCmp !== null)
        this.fail(t, `${lastCmp} does not associate with ${op}`);
      this.next();
      const y = this.parseBinary(level + 1);
      if (level === CMP_PREC) lastCmp = op;
      x = { kind: 'Binary', op, x, y, line: t.line, col: t.col };
    }
  }

  private parseUnary(): A.Expr {
    const t = this.tok;
    if (t.kind === '-' || t.kind === '+' || t.kind === '~') {
      this.next();
      this.enter(t);
      const x = this.parseUnary();
      this.leave();
      return { kind: 'Unary', op: t.kind, x, line: t.line, col: t.col };
    }
    return this.parsePrimaryWithSuffix();
  }
}
