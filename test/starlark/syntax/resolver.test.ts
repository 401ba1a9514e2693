import { describe, expect, it } from 'vitest';
import { check } from '../../../src/starlark/index.js';

function errors(src: string, options = {}): string[] {
  return check('r.star', src, { options }).map((e) => e.message);
}

describe('resolver', () => {
  it('accepts forward references to globals and locals', () => {
    expect(errors('def f():\n    return g()\ndef g():\n    return 1\n')).toEqual([]);
  });

  it('collects all errors, with positions and spelling hints', () => {
    const errs = errors('hello = 1\ndef f():\n    return hellp + undefined_thing\nhello = 2\n');
    expect(errs).toEqual([
      'r.star:3:12: undefined: hellp (did you mean hello?)',
      'r.star:3:20: undefined: undefined_thing',
      'r.star:4:1: cannot reassign global hello declared at r.star:1:1',
    ]);
  });

  it('enforces Steward dialect defaults (no while, no top-level control)', () => {
    expect(errors('def f():\n    while True:\n        pass\n')).toEqual([
      'r.star:2:5: dialect does not support while loops',
    ]);
    expect(errors('for x in []:\n    pass\n')).toEqual([
      'r.star:1:1: for loop not within a function',
    ]);
    expect(errors('for x in []:\n    pass\n', { toplevelcontrol: true })).toEqual([]);
  });

  it('checks parameters and call arguments', () => {
    expect(errors('def f(a, a): pass')).toEqual(['r.star:1:10: duplicate parameter: a']);
    expect(errors('def f(**k): pass\nf(a=1, a=2)')).toEqual([
      'r.star:2:8: keyword argument "a" is repeated',
    ]);
    expect(errors('def f(): break')).toEqual(['r.star:1:10: break not in a loop']);
  });
});
