import type * as A from './ast.js';
import { ExprParser } from './parse-expr.js';
import { describeKind } from './tokens.js';

const ASSIGN_OPS = new Set([
  '=',
  '+=',
  '-=',
  '*=',
  '/=',
  '//=',
  '%=',
  '&=',
  '|=',
  '^=',
  '<<=',
  '>>=',
]);

/** Statement grammar. Stops at the first error, which it throws as a StarlarkSyntaxError. */
class Parser extends ExprParser {
  parseFile(file: string): A.FileNode {
    const stmts: A.Stmt[] = [];
    while (this.kind() !== 'EOF') {
      if (this.kind() === 'NEWLINE') {
        this.next();
        continue;
      }
      this.parseStmt(stmts);
    }
    return { file, stmts, scope: null };
  }

  private parseStmt(out: A.Stmt[]): void {
    switch (this.kind()) {
      case 'def':
        out.push(this.parseDef());
        return;
      case 'if':
        out.push(this.parseIf());
        return;
      case 'for': {
        const t = this.next();
        const vars = this.parseForVars();
        this.expect('in');
        const iter = this.parseExpr(false);
        this.expect(':');
        out.push({ kind: 'For', vars, iter, body: this.parseSuite(), line: t.line, col: t.col });
        return;
      }
      case 'while': {
        const t = this.next();
        const cond = this.parseTest();
        this.expect(':');
        out.push({ kind: 'While', cond, body: this.parseSuite(), line: t.line, col: t.col });
        return;
      }
    }
    this.parseSimpleStmt(out);
  }

  private parseDef(): A.DefStmt {
    const t = this.next();
    const name = this.ident();
    this.expect('(');
    const params = this.parseParams(')');
    this.expect(')');
    this.expect(':');
    const body = this.parseSuite();
    return { kind: 'Def', name, params, body, scope: null, line: t.line, col: t.col };
  }

  private parseIf(): A.IfStmt {
    const t = this.next();
    const cond = this.parseTest();
    this.expect(':');
    const then = this.parseSuite();
    let otherwise: A.Stmt[] = [];
    if (this.kind() === 'elif') {
      otherwise = [this.parseIf()];
    } else if (this.kind() === 'else') {
      this.next();
      this.expect(':');
      otherwise = this.parseSuite();
    }
    return { kind: 'If', cond, then, else: otherwise, line: t.line, col: t.col };
  }

  private parseSuite(): A.Stmt[] {
    const body: A.Stmt[] = [];
    if (this.kind() !== 'NEWLINE') {
      this.parseSimpleStmt(body);
      return body;
    }
    this.next();
    const indent = this.expect('INDENT');
    this.enter(indent);
    while (this.kind() !== 'OUTDENT' && this.kind() !== 'EOF') this.parseStmt(body);
    this.expect('OUTDENT');
    this.leave();
    return body;
  }

  private parseSimpleStmt(out: A.Stmt[]): void {
    for (;;) {
      out.push(this.parseSmallStmt());
      if (this.kind() !== ';') break;
      this.next();
      if (this.kind() === 'NEWLINE' || this.kind() === 'EOF') break;
    }
    if (this.kind() !== 'EOF') this.expect('NEWLINE');
  }

  private parseSmallStmt(): A.Stmt {
    const t = this.tok;
    switch (t.kind) {
      case 'return': {
        this.next();
        const k = this.kind();
        const x = k === 'NEWLINE' || k === 'EOF' || k === ';' ? null : this.parseExpr(false);
        return { kind: 'Return', x, line: t.line, col: t.col };
      }
      case 'break':
      case 'continue':
      case 'pass':
        this.next();
        return { kind: t.kind, line: t.line, col: t.col };
      case 'load':
        return this.parseLoad();
    }
    const lhs = this.parseExpr(false);
    const op = this.tok;
    if (ASSIGN_OPS.has(op.kind)) {
      this.next();
      const rhs = this.parseExpr(false);
      return { kind: 'Assign', op: op.kind, lhs, rhs, line: op.line, col: op.col };
    }
    return { kind: 'ExprStmt', x: lhs, line: t.line, col: t.col };
  }

  private parseLoad(): A.LoadStmt {
    const t = this.next();
    this.expect('(');
    const m = this.tok;
    if (m.kind !== 'STRING')
      this.fail(m, 'first operand of load statement must be a string literal');
    this.next();
    const names: A.LoadName[] = [];
    while (this.kind() !== ')') {
      this.expect(',');
      if (this.kind() === ')') break;
      const n = this.tok;
      if (n.kind === 'STRING') {
        this.next();
        const local: A.Ident = {
          kind: 'Ident',
          name: n.text,
          line: n.line,
          col: n.col,
          binding: null,
        };
        names.push({ local, orig: n.text, line: n.line, col: n.col });
      } else if (n.kind === 'IDENT') {
        const local = this.ident();
        if (this.kind() !== '=')
          this.fail(this.tok, `load operand must be "${n.text}" or ${n.text}="originalname"`);
        this.next();
        const o = this.tok;
        if (o.kind !== 'STRING')
          this.fail(o, `original name of loaded symbol must be quoted: ${n.text}="originalname"`);
        this.next();
        names.push({ local, orig: o.text, line: n.line, col: n.col });
      } else {
        this.fail(
          n,
          `load operand must be "name" or localname="name" (got ${describeKind(n.kind)})`,
        );
      }
    }
    const rp = this.expect(')');
    if (names.length === 0) this.fail(rp, 'load statement must import at least 1 symbol');
    return { kind: 'Load', module: m.text, names, line: t.line, col: t.col };
  }
}

/** Parses a whole file. Throws a StarlarkSyntaxError (`file:line:col: message`) at the first error. */
export function parseFile(file: string, src: string): A.FileNode {
  return new Parser(file, src).parseFile(file);
}

/** Parses a single expression (for hosts evaluating snippets). */
export function parseExpression(file: string, src: string): A.Expr {
  const p = new Parser(file, src) as unknown as {
    parseExpr(inParens: boolean): A.Expr;
    tok: { kind: string };
  };
  const x = p.parseExpr(false);
  return x;
}
