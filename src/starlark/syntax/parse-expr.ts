import type * as A from './ast.js';
import { EXPR_LIST_END, OperatorParser } from './parse-operators.js';
import { describeKind, type Token } from './tokens.js';

/**
 * Expression grammar, completed: operands, postfix calls, indexing and attribute access,
 * list and dict displays and comprehensions, on top of the operator levels it inherits.
 * The statement grammar extends it.
 */
export class ExprParser extends OperatorParser {
  protected override parsePrimaryWithSuffix(): A.Expr {
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
