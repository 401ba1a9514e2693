import { describe, expect, it } from 'vitest';
import { parse, StarlarkSyntaxError, type FileNode } from '../../../src/starlark/index.js';

type Expr = Extract<FileNode['stmts'][number], { kind: 'Assign' }>['rhs'];

/** The right side of `x = <src>` with every operator's operands in parentheses. */
function grouped(src: string): string {
  const show = (e: Expr): string => {
    switch (e.kind) {
      case 'Binary':
        return `(${show(e.x)} ${e.op} ${show(e.y)})`;
      case 'Unary':
        return `(${e.op}${e.op === 'not' ? ' ' : ''}${show(e.x)})`;
      case 'Ident':
        return e.name;
      case 'Literal':
        return String(e.value.v);
      default:
        return e.kind;
    }
  };
  const s = parse('p.star', `x = ${src}\n`).stmts[0];
  if (s?.kind !== 'Assign') throw new Error('not an assignment');
  return show(s.rhs);
}

function err(src: string): string {
  try {
    parse('p.star', src);
  } catch (e) {
    if (e instanceof StarlarkSyntaxError) return e.message;
    throw e;
  }
  return 'ok';
}

describe('parser', () => {
  it('parses every statement form', () => {
    const src = [
      'load("m", "a", b = "c")',
      'def f(x, y = 1, *args, z, **kw):',
      '    if x: pass',
      '    elif y:',
      '        return [i for i in args if i] + [j for j in kw]',
      '    else:',
      '        for a, b in kw.items():',
      '            continue',
      '    while x:',
      '        break',
      '    x[1:2:3] = {k: v for k, v in []}',
      '    x.y += -1 if z else lambda q, *r: q',
      '    return',
      'x = (1,)',
    ].join('\n');
    const ast = parse('p.star', src);
    expect(ast.stmts.map((s) => s.kind)).toEqual(['Load', 'Def', 'Assign']);
  });

  it('records line and column of operators', () => {
    const ast = parse('p.star', 'x = 1\ny = a + b');
    const s = ast.stmts[1];
    expect(
      s?.kind === 'Assign' && s.rhs.kind === 'Binary' ? [s.rhs.line, s.rhs.col] : null,
    ).toEqual([2, 7]);
  });

  it('groups operators by precedence, left to right within a level', () => {
    expect(grouped('a or b and c or d')).toBe('((a or (b and c)) or d)');
    expect(grouped('not a == b and not not c')).toBe('((not (a == b)) and (not (not c)))');
    expect(grouped('a - b - c // d % e')).toBe('((a - b) - ((c // d) % e))');
    expect(grouped('~a | b ^ c & d << 1 + 2 * -3')).toBe(
      '((~a) | (b ^ (c & (d << (1 + (2 * (-3)))))))',
    );
    expect(grouped('a + b < c * d or e')).toBe('(((a + b) < (c * d)) or e)');
    expect(grouped('not a not in b or c')).toBe('((not (a not in b)) or c)');
  });

  it('reports syntax errors as file:line:col: message', () => {
    expect(err('x = 1 +\n')).toBe('p.star:1:8: got newline, want primary expression');
    expect(err('_ = 0 == 1 == 2')).toMatch(/== does not associate with ==/);
    expect(err('_ = a not in b in c')).toBe('p.star:1:16: not in does not associate with in');
    expect(err('_ = a not b')).toBe('p.star:1:11: got identifier, want in');
    expect(err('a, b, = 1, 2')).toMatch(/unparenthesized tuple with trailing comma/);
    expect(err('f(1+2 = 3)')).toMatch(/keyword argument must have form name=expr/);
    expect(err('print(1, 2')).toMatch(/got end of file, want '\)'/);
    expect(err('load("a", x)')).toMatch(/load operand must be "x"/);
  });

  it('refuses pathological nesting without exhausting the JS stack', () => {
    expect(err('x = ' + '('.repeat(5000) + '1' + ')'.repeat(5000))).toMatch(/nesting too deep/);
    expect(err('x = ' + '-'.repeat(5000) + '1')).toMatch(/nesting too deep/);
  });
});
