import type * as A from './ast.js';
import { Lexer } from './lexer.js';
import { describeKind, type Token } from './tokens.js';

// Binary operator precedence; `not` (unary) sits at level 2 between `and` and comparisons.
const PREC: Record<string, number> = {
  or: 0,
  and: 1,
  '==': 3,
  '!=': 3,
  '<': 3,
  '>': 3,
  '<=': 3,
  '>=': 3,
  in: 3,
  'not in': 3,
  '|': 4,
  '^': 5,
  '&': 6,
  '<<': 7,
  '>>': 7,
  '+': 8,
  '-': 8,
  '*': 9,
  '/': 9,
  '//': 9,
  '%': 9,
};
const NOT_PREC = 2;
const CMP_PREC = 3;
const MAX_PREC = 9;
/** Deeper nesting than this is refused, so that recursion in later stages stays far from JS's stack limit. */
const MAX_NESTING = 100;

const EXPR_LIST_END = new Set(['EOF', 'NEWLINE', '=', '}', ']', ')', ';']);

/** Expression grammar; the statement grammar extends it. */
export class ExprParser {
  protected readonly lex: Lexer;
  protected tok: Token;
  private nesting = 0;

  constructor(file: string, src: string) {
    this.lex = new Lexer(file, src);
    this.tok = this.lex.next();
  }

  /** The current token's kind; a method so that TypeScript does not narrow it across `next()` calls. */
  protected kind(): string {
    return this.tok.kind;
  }

  protected next(): Token {
    const t = this.tok;
    this.tok = this.lex.next();
    return t;
  }

  protected fail(t: Token, msg: string): never {
    return this.lex.error(t.line, t.col, msg);
  }

  protected expect(kind: string): Token {
    if (this.kind() !== kind)
      this.fail(this.tok, `got ${describeKind(this.kind())}, want ${describeKind(kind)}`);
    return this.next();
  }

  protected enter(t: Token): void {
    if (++this.nesting > MAX_NESTING) this.fail(t, 'nesting too deep');
  }

  protected leave(): void {
    this.nesting--;
  }

  protected ident(): A.Ident {
    const t = this.tok;
    if (t.kind !== 'IDENT') this.fail(t, 'not an identifier');
    this.next();
    return { kind: 'Ident', name: t.text, line: t.line, col: t.col, binding: null };
  }

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
  private parseTestNoCond(): A.Expr {
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

  private parseBinary(prec: number): A.Expr {
    if (prec > MAX_PREC) return this.parseUnary();
    if (prec === NOT_PREC) {
      if (this.kind() === 'not') {
        const t = this.next();
        this.enter(t);
        const x = this.parseBinary(NOT_PREC);
        this.leave();
        return { kind: 'Unary', op: 'not', x, line: t.line, col: t.col };
      }
      return this.parseBinary(CMP_PREC);
    }
    let x = this.parseBinary(prec + 1);
    let lastCmp: string | null = null;
    for (;;) {
      const t = this.tok;
      let op = t.kind;
      if (op === 'not' && prec === CMP_PREC) {
        this.next();
        if (this.kind() !== 'in') this.fail(this.tok, `got ${describeKind(this.kind())}, want in`);
        op = 'not in';
      } else if (PREC[op] !== prec) {
        return x;
      }
      if (prec === CMP_PREC && lastCmp !== null)
        this.fail(t, `${lastCmp} does not associate with ${op}`);
      this.next();
      const y = this.parseBinary(prec + 1);
      if (prec === CMP_PREC) lastCmp = op;
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

  protected parsePrimaryWithSuffix(): A.Expr {
    let x = this.parsePrimary();
    for (;;) {
      const t = this.tok;
      if (t.kind === '.') {
        this.next();
        const name = this.ident();
        x = { kind: 'Dot', x, name: name.name, line: name.line, col: name.col };
      } else if (t.kind === '(') {
        x = this.parseCall(x);
      } else if (t.kind === '[') {
        x = this.parseIndex(x);
      } else {
        return x;
      }
    }
  }

  private parseCall(fn: A.Expr): A.Expr {
    const lp = this.next();
    this.enter(lp);
    const args: A.Arg[] = [];
    while (this.kind() !== ')' && this.kind() !== 'EOF') {
      if (args.length > 0) {
        this.expect(',');
        if (this.kind() === ')') break;
      }
      const t = this.tok;
      if (t.kind === '*' || t.kind === '**') {
        this.next();
        args.push({
          kind: t.kind === '*' ? 'star' : 'starstar',
          name: null,
          value: this.parseTest(),
          line: t.line,
          col: t.col,
        });
        continue;
      }
      const x = this.parseTest();
      if (this.kind() === '=') {
        if (x.kind !== 'Ident') this.fail(this.tok, 'keyword argument must have form name=expr');
        this.next();
        args.push({
          kind: 'named',
          name: x.name,
          value: this.parseTest(),
          line: t.line,
          col: t.col,
        });
      } else {
        args.push({ kind: 'pos', name: null, value: x, line: t.line, col: t.col });
      }
    }
    this.expect(')');
    this.leave();
    return { kind: 'Call', fn, args, line: lp.line, col: lp.col };
  }

  private parseIndex(x: A.Expr): A.Expr {
    const lb = this.next();
    this.enter(lb);
    let lo: A.Expr | null = null;
    if (this.kind() !== ':') {
      lo = this.parseExpr(false);
      if (this.kind() === ']') {
        this.next();
        this.leave();
        return { kind: 'Index', x, index: lo, line: lb.line, col: lb.col };
      }
    }
    let hi: A.Expr | null = null;
    let step: A.Expr | null = null;
    this.expect(':');
    if (this.kind() !== ':' && this.kind() !== ']') hi = this.parseTest();
    if (this.kind() === ':') {
      this.next();
      if (this.kind() !== ']') step = this.parseTest();
    }
    this.expect(']');
    this.leave();
    return { kind: 'Slice', x, lo, hi, step, line: lb.line, col: lb.col };
  }

  private parsePrimary(): A.Expr {
    const t = this.tok;
    switch (t.kind) {
      case 'IDENT':
        return this.ident();
      case 'INT':
        this.next();
        return {
          kind: 'Literal',
          value: { type: 'int', v: t.value as number | bigint },
          line: t.line,
          col: t.col,
        };
      case 'FLOAT':
        this.next();
        return {
          kind: 'Literal',
          value: { type: 'float', v: t.value as number },
          line: t.line,
          col: t.col,
        };
      case 'STRING':
        this.next();
        return { kind: 'Literal', value: { type: 'string', v: t.text }, line: t.line, col: t.col };
      case 'BYTES':
        this.next();
        return {
          kind: 'Literal',
          value: { type: 'bytes', v: t.value as Uint8Array },
          line: t.line,
          col: t.col,
        };
      case '(': {
        this.next();
        this.enter(t);
        if (this.kind() === ')') {
          this.next();
          this.leave();
          return { kind: 'Tuple', elems: [], line: t.line, col: t.col };
        }
        const x = this.parseExpr(true);
        this.expect(')');
        this.leave();
        return { kind: 'Paren', x, line: t.line, col: t.col };
      }
      case '[':
      case '{':
        this.next();
        this.enter(t);
        try {
          return t.kind === '[' ? this.parseList(t) : this.parseDict(t);
        } finally {
          this.leave();
        }
    }
    return this.fail(t, `got ${describeKind(t.kind)}, want primary expression`);
  }

  private parseList(lb: Token): A.Expr {
    if (this.kind() === ']') {
      this.next();
      return { kind: 'List', elems: [], line: lb.line, col: lb.col };
    }
    const x = this.parseTest();
    if (this.kind() === 'for') return this.parseComprehension(lb, x, null, ']');
    const elems = [x];
    while (this.kind() === ',') {
      this.next();
      if (this.kind() === ']') break;
      elems.push(this.parseTest());
    }
    this.expect(']');
    return { kind: 'List', elems, line: lb.line, col: lb.col };
  }

  private parseDictEntry(): A.DictEntry {
    const t = this.tok;
    const key = this.parseTest();
    this.expect(':');
    return { key, value: this.parseTest(), line: t.line, col: t.col };
  }

  private parseDict(lb: Token): A.Expr {
    if (this.kind() === '}') {
      this.next();
      return { kind: 'Dict', entries: [], line: lb.line, col: lb.col };
    }
    const e = this.parseDictEntry();
    if (this.kind() === 'for') return this.parseComprehension(lb, null, e, '}');
    const entries = [e];
    while (this.kind() === ',') {
      this.next();
      if (this.kind() === '}') break;
      entries.push(this.parseDictEntry());
    }
    this.expect('}');
    return { kind: 'Dict', entries, line: lb.line, col: lb.col };
  }

  private parseComprehension(
    lb: Token,
    body: A.Expr | null,
    dictBody: A.DictEntry | null,
    end: string,
  ): A.Expr {
    const clauses: Array<A.ForClause | A.IfClause> = [];
    for (;;) {
      const t = this.tok;
      if (t.kind === end) break;
      if (t.kind === 'for') {
        this.next();
        const vars = this.parseForVars();
        this.expect('in');
        clauses.push({ kind: 'for', vars, iter: this.parseBinary(0), line: t.line, col: t.col });
      } else if (t.kind === 'if') {
        this.next();
        clauses.push({ kind: 'if', cond: this.parseTestNoCond(), line: t.line, col: t.col });
      } else {
        this.fail(t, `got ${describeKind(t.kind)}, want '${end}', for, or if`);
      }
    }
    this.next();
    return { kind: 'Comp', body, dictBody, clauses, bindings: [], line: lb.line, col: lb.col };
  }

  /** Loop variables; avoids `parseExpr`, which would swallow the `in` of `for x in y`. */
  protected parseForVars(): A.Expr {
    const t = this.tok;
    const v = this.parsePrimaryWithSuffix();
    if (this.kind() !== ',') return v;
    const elems = [v];
    while (this.kind() === ',') {
      this.next();
      if (EXPR_LIST_END.has(this.kind())) break;
      elems.push(this.parsePrimaryWithSuffix());
    }
    return { kind: 'Tuple', elems, line: t.line, col: t.col };
  }
}
