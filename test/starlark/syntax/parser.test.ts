import { describe, expect, it } from 'vitest';
import { parse, StarlarkSyntaxError } from '../../../src/starlark/index.js';

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

  it('reports syntax errors as file:line:col: message', () => {
    expect(err('x = 1 +\n')).toBe('p.star:1:8: got newline, want primary expression');
    expect(err('_ = 0 == 1 == 2')).toMatch(/== does not associate with ==/);
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
