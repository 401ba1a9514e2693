import { describe, expect, it } from 'vitest';
import { callFunction, execModule, type Value } from '../../../src/starlark/index.js';
import { fails, run } from './helpers.js';

describe('evaluator', () => {
  it('evaluates expressions and statements', () => {
    expect(
      run('result = [1 + 2 * 3, 7 // 2, -7 // 2, 7 % -3, "a" + "b", (2 < 3) if True else 0]'),
    ).toEqual([7, 3, -4, -2, 'ab', true]);
    expect(run('result = (1 and 2, 0 or "x", not None, 1 in [1], "b" not in "abc")')).toEqual([
      2,
      'x',
      true,
      true,
      false,
    ]);
    expect(run('result = 4611686018427387904 * 4')).toBe(2n ** 64n);
  });

  it('supports functions: defaults, keywords, *args, **kwargs, closures, lambdas', () => {
    const src = `
def f(a, b = 2, *args, c = 3, **kw):
    return [a, b, list(args), c, kw]
def counter():
    n = [0]
    def inc(k = 1):
        n[0] += k
        return n[0]
    return inc
def main():
    inc = counter()
    inc()
    return [f(1), f(1, 5, 6, c = 9, z = 0), inc(10), (lambda x, *y: x + len(y))(1, 2, 3)]
result = main()
`;
    expect(run(src)).toEqual([[1, 2, [], 3, {}], [1, 5, [6], 9, { z: 0 }], 11, 3]);
  });

  it('runs comprehensions, slicing, augmented assignment and unpacking', () => {
    const src = `
def main():
    xs = [x * x for x in range(10) if x % 2 == 0]
    d = {k: v for k, v in [("a", 1), ("b", 2)]}
    s = "hello"
    a, (b, c) = 1, [2, 3]
    xs[0] += 100
    return [xs, d, s[1:4], s[::-1], xs[-1], a + b + c, [[i, j] for i in range(2) for j in range(i)]]
result = main()
`;
    expect(run(src)).toEqual([
      [100, 4, 16, 36, 64],
      { a: 1, b: 2 },
      'ell',
      'olleh',
      64,
      6,
      [[1, 0]],
    ]);
  });

  it('freezes globals after load and reports mutation of frozen values', () => {
    const m = execModule({ file: 'e.star', source: 'x = [1]\ndef f():\n    x.append(2)\n' });
    expect(() => callFunction(m.globals.get('f') as Value, [], null, m.thread)).toThrow(
      /cannot append to frozen list/,
    );
  });

  it('detects recursion unless the dialect allows it', () => {
    const src = 'def f(n):\n    return 0 if n == 0 else f(n - 1)\nresult = f(3)\n';
    expect(fails(src).message).toMatch(/function f called recursively/);
    expect(run(src, { options: { recursion: true } })).toBe(0);
  });

  it('reports runtime errors with precise positions and a call stack', () => {
    const err = fails(
      'def g(x):\n    return x + "s"\ndef f():\n    return g(1)\nf()\n',
    ) as Error & {
      bare: string;
      callStack: Array<{ line: number; fn: string }>;
      traceback: string;
    };
    expect(err.message).toBe('e.star:2:14: unknown binary op: int + string');
    expect(err.bare).toBe('unknown binary op: int + string');
    expect(err.callStack.map((f) => [f.fn, f.line])).toEqual([
      ['<toplevel>', 5],
      ['f', 4],
      ['g', 2],
    ]);
    expect(err.traceback).toMatch(/Traceback/);
  });

  it('reports unbound locals and globals', () => {
    expect(fails('def f():\n    x = x\nf()').message).toMatch(
      /local variable x referenced before assignment/,
    );
    expect(fails('def f():\n    return y\nf()\ny = 1').message).toMatch(
      /global variable y referenced before assignment/,
    );
  });

  it('calls load through the host', () => {
    const load = (m: string) => ({ answer: m.length });
    expect(run('load("abc", "answer")\nresult = answer', { load })).toBe(3);
    expect(fails('load("abc", "nope")', { load }).message).toMatch(/nope not found in module abc/);
  });
});

describe('compiled modules', () => {
  const source = `
leftover = host.get("first")
def main():
    return [host["x"], leftover]
`;

  it('run again with new host values and none of the previous run left', async () => {
    const { compileModule, toStarlark } = await import('../../../src/starlark/index.js');
    const program = compileModule({ file: 'p.star', source, predeclared: ['host'] });
    const first = program.run({
      predeclared: { host: toStarlark({ first: 'from the first run', x: 1 }) },
    });
    const main = first.globals.get('main') as Value;
    expect(callFunction(main, [], null, first.thread)).toEqual(
      toStarlark([1, 'from the first run']),
    );
    program.release();

    const second = program.run({ predeclared: { host: toStarlark({ x: 2 }) } });
    expect(callFunction(second.globals.get('main') as Value, [], null, second.thread)).toEqual(
      toStarlark([2, null]),
    );
    expect(second.steps).toBe(first.steps);
    program.release();

    // The same inputs take the same steps, cached or not.
    const again = program.run({
      predeclared: { host: toStarlark({ first: 'from the first run', x: 1 }) },
    });
    expect(again.steps).toBe(first.steps);
    program.release();
    const fresh = execModule({
      file: 'p.star',
      source,
      predeclared: { host: toStarlark({ first: 'from the first run', x: 1 }) },
    });
    expect(fresh.steps).toBe(first.steps);
  });

  it('refuses a second run before the first is released, and a missing host value', async () => {
    const { compileModule, toStarlark } = await import('../../../src/starlark/index.js');
    const program = compileModule({ file: 'p.star', source: 'y = host', predeclared: ['host'] });
    program.run({ predeclared: { host: toStarlark(1) } });
    expect(() => program.run({ predeclared: { host: toStarlark(2) } })).toThrow(
      /p\.star is already running/,
    );
    program.release();
    expect(() => program.run({ predeclared: {} })).toThrow(/predeclared value host missing/);
  });

  it('reports static errors at compile time, as execModule does', async () => {
    const { compileModule } = await import('../../../src/starlark/index.js');
    expect(() => compileModule({ file: 'p.star', source: 'x = nope', predeclared: [] })).toThrow(
      /undefined: nope/,
    );
  });
});
