/**
 * The parser's token cursor: the current token, one-token lookahead, `expect`, error
 * reporting and the nesting guard. Every grammar layer (operators, primaries, statements)
 * extends it, so it lives on its own rather than in any one of them.
 */
import type * as A from './ast.js';
import { Lexer } from './lexer.js';
import { describeKind, type Token } from './tokens.js';

/** Deeper nesting than this is refused, so that recursion in later stages stays far from JS's stack limit. */
const MAX_NESTING = 100;

export abstract class TokenCursor {
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
}
