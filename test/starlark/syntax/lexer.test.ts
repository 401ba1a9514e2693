import { describe, expect, it } from 'vitest';
import { Lexer } from '../../../src/starlark/syntax/lexer.js';

function kinds(src: string): string[] {
  const lx = new Lexer('t.star', src);
  const out: string[] = [];
  for (;;) {
    const t = lx.next();
    out.push(t.kind === 'IDENT' ? `id:${t.text}` : t.kind === 'STRING' ? `s:${t.text}` : t.kind);
    if (t.kind === 'EOF') return out;
  }
}

function value(src: string): unknown {
  const t = new Lexer('t.star', src).next();
  return t.kind === 'STRING' ? t.text : t.value;
}

describe('lexer', () => {
  it('takes the longest operator at each position (operators looked up by first character)', () => {
    const ops =
      '//= << = >>= ** // < < >> == != <= >= += -= *= /= %= &= |= ^= + - * / % & | ^ ~ = . , ; :';
    expect(kinds(ops).slice(0, -2)).toEqual(ops.split(' '));
    expect(kinds('a<<=b**c//d')).toEqual([
      'id:a',
      '<<=',
      'id:b',
      '**',
      'id:c',
      '//',
      'id:d',
      'NEWLINE',
      'EOF',
    ]);
    expect(kinds('([{}])!=x').slice(0, 7)).toEqual(['(', '[', '{', '}', ']', ')', '!=']);
    expect(() => kinds('a ! b')).toThrow(/unexpected input character "!"/);
  });

  it('emits indentation tokens, treating tabs as 8-column stops', () => {
    expect(kinds('if x:\n\ty\n        z\n')).toEqual([
      'if',
      'id:x',
      ':',
      'NEWLINE',
      'INDENT',
      'id:y',
      'NEWLINE',
      'id:z',
      'NEWLINE',
      'OUTDENT',
      'EOF',
    ]);
  });

  it('ignores newlines inside brackets and after a backslash', () => {
    expect(kinds('f(1,\n  2)\nx = 1 + \\\n 2')).toEqual([
      'id:f',
      '(',
      'INT',
      ',',
      'INT',
      ')',
      'NEWLINE',
      'id:x',
      '=',
      'INT',
      '+',
      'INT',
      'NEWLINE',
      'EOF',
    ]);
  });

  it('reads ints in every base, big ints and floats', () => {
    expect(value('0x1F')).toBe(31);
    expect(value('0o17')).toBe(15);
    expect(value('0b101')).toBe(5);
    expect(value('123456789012345678901234567890')).toBe(123456789012345678901234567890n);
    expect(value('1.5e3')).toBe(1500);
    expect(value('.5')).toBe(0.5);
    expect(new Lexer('t', '1.').next().kind).toBe('FLOAT');
  });

  it('decodes string literals: escapes, raw, triple-quoted, bytes', () => {
    expect(value(String.raw`"a\tb\n\x41\101\u00e9"`)).toBe('a\tb\nAAé');
    expect(value(String.raw`r"a\nb\'"`)).toBe(String.raw`a\nb\'`);
    expect(value('"""x\n"y"\n"""')).toBe('x\n"y"\n');
    expect(value(String.raw`b"\xff\u00e9"`)).toEqual(Uint8Array.from([0xff, 0xc3, 0xa9]));
  });

  it('reports errors with positions', () => {
    expect(() => kinds('x = "abc\n')).toThrow(/t.star:1:5: unexpected newline in string/);
    expect(() => kinds('s = "\\q"')).toThrow(/invalid escape sequence/);
    expect(() => kinds('x = 0755')).toThrow(/octal/);
    expect(() => kinds('if x:\n    a\n  b\n')).toThrow(/unindent does not match/);
    expect(() => kinds('x)')).toThrow(/unexpected '\)'/);
  });
});
