import { describe, expect, it } from 'vitest';
import { StarFunction, execModule } from '../../../src/starlark/index.js';
import { same } from '../../support/starlark-backends.js';

/**
 * The code-generating backend (eval/gen-*.ts) against the closure compiler: every program runs
 * on both, and results, step counts, error messages, positions and call stacks must agree.
 */

/** Which of the module's functions got generated code. */
function generated(src: string): Record<string, boolean> {
  const m = execModule({ file: 'g.star', source: src, options: { recursion: true } });
  const out: Record<string, boolean> = {};
  for (const [k, v] of m.globals) if (v instanceof StarFunction) out[k] = v.code.gen !== null;
  return out;
}

const REC = { options: { recursion: true, while: true, set: true } };

const programs: Record<string, string> = {
  arithmetic: `
def f(a, b):
    return [a + b, a - b, a * b, a % b, a // b, -a, a < b, a <= b, a > b, a >= b, a == b, a != b,
            a ^ b, a & b, a | b, a << 3, a >> 1, ~a, +a, a / 4]
r = [f(7, 3), f(-7, 3), f(1152921504606846976, 3), f(3, 1180591620717411303424), f(9007199254740991, 1)]
r2 = f(12345678901, 98765)
def prng(seed, m):
    out = []
    for i in range(50):
        seed = (seed * 1103515245 + 12345) % 2147483648
        h = ((seed ^ 14695981039346656037) * 1099511628211) % 18446744073709551616
        out.append((seed, h % m, -h % 2147483648, (h * -3) % 7, h // 3, -7 // 2))
    return out
r3 = [prng(7, 1000), prng(99, 18446744073709551616)]
`,
  shifts: `
def f(a, b):
    return [a >> b, a << b, -a >> b, a >> 0]
r = [f(x, s) for x in [0, 1, 7, 9007199254740993, 18446744073709551615] for s in [0, 1, 33, 63, 500]]
`,
  fused: `
def f(a, b, c, m):
    k = 18446744073709551616
    return [(a * b + c) % 4294967296, (a * b - c) % 256, (a * b) % 65536, (a * b + c) % m,
            (a * b - c) % m, (a + c) % m, (a - c) % m, (a * b) % m, (a * b + c) % k,
            (a * 3 + 5) % 2147483648, (a * b + c) % 18446744073709551616]
r = [f(a, b, c, m) for a in [0, 3, -5, 4294967297, 9007199254740991, 36893488147419103232]
     for b in [1, -7, 1103515245] for c in [0, 12345, -1, 18446744073709551617]
     for m in [7, 4294967296, 18446744073709551616, -8]]
def g(a, b, c, m):
    return [(a * b + c) % m, (a * b + c) % 8]
r2 = [g(1.5, 2, 3, 4), g(2, 3, 0.5, 16), g(2, 3, 4, 2.5), g("ab", 2, "c", 8) if False else 0]
`,
  strings: `
def f(s):
    out = []
    for i in range(len(s)):
        ch = s[i]
        out.append(ch.upper() if i % 2 else ch)
    return "".join(out) + s[1:3] + s[::-1] + str(len(s)) + ("x" in s and "y" or "n")
r = f("hello, world")
`,
  control: `
def f(n):
    total = 0
    i = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        elif i > 50:
            break
        else:
            pass
        for j in range(i):
            if j > 4:
                break
            total += j
    return total, i
r = f(100)
`,
  collections: `
def f():
    d = {"a": 1, "b": [1, 2]}
    d["c"] = 3
    d["a"] += 10
    d["b"][0] += 5
    t = (1, 2, 3)
    a, (b, c) = t[0], t[1:]
    [x, y] = [b, c]
    l = [i * i for i in range(10) if i % 2]
    m = {k: v for k, v in d.items() if k != "c"}
    s = set([1, 2, 3])
    return d, a, b, c, x, y, l, m, s, sorted(d.keys(), reverse = True), len(d)
r = f()
`,
  calls: `
def g(a, b = 2, *args, c = 3, **kw):
    return (a, b, args, c, sorted(kw.items()))
def f():
    k = {"z": 1}
    return [g(1), g(1, 5), g(1, 2, 3, 4), g(1, c = 9), g(*[1, 2, 3], **k), g(a = 0)]
r = f()
h = lambda x, y = 10: x * y
r2 = [h(2), h(2, 3), sorted([3, 1, 2], key = lambda v: -v)]
`,
  nested: `
def outer(n):
    def inner(x):
        return x + 1
    add = lambda a, b: a + b
    return [inner(i) for i in range(n)] + [add(n, n)]
def counter():
    c = [0]
    def bump():
        c[0] += 1
        return c[0]
    return bump
r = outer(5)
b = counter()
r2 = [b(), b()]
`,
  recursion: `
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)
def build(d):
    return d if d == 0 else (build(d - 1), build(d - 1))
r = [fib(15), build(3)]
`,
  globals: `
G = [1, 2]
def f():
    G.append(3)
    return len(G)
r = f()
`,
};

describe('codegen backend', () => {
  for (const [name, src] of Object.entries(programs)) {
    it(`runs ${name} as the closures do (results and steps)`, () => {
      const o = same(src, REC);
      expect(o.error).toBeUndefined();
    });
  }

  it('generates the benchmark shapes and falls back for captured locals', () => {
    expect(generated(programs.recursion as string)).toEqual({ fib: true, build: true });
    expect(generated(programs.nested as string)).toEqual({ outer: true, counter: false, b: true });
    expect(generated(programs.calls as string)).toEqual({ g: true, f: true, h: true });
  });

  it('keeps every function on closures when codegen is off', () => {
    const m = execModule({ file: 'g.star', source: 'def f():\n    return 1\n', codegen: false });
    expect((m.globals.get('f') as StarFunction).code.gen).toBeNull();
  });

  const errors: Record<string, string> = {
    unboundLocal: 'def f(c):\n    if c:\n        x = 1\n    return x\nf(False)\n',
    unboundGlobal: 'def f():\n    return y\nr = f()\ny = 1\n',
    // Bound in a loop body: unbound again neither on a later iteration's earlier read nor after
    // an empty loop; the generator's assignment tracking must forget what a body learned.
    unboundBeforeInLoop:
      'def f():\n    for i in range(3):\n        if i > 0:\n            print(x)\n        x = i\n    for i in range(2):\n        print(y)\n        y = i\nf()\n',
    unboundAfterEmptyLoop: 'def f(n):\n    for i in range(n):\n        x = i\n    return x\nf(0)\n',
    unboundAfterWhile:
      'def f(n):\n    while n > 0:\n        z = n\n        n -= 1\n    return z\nf(0)\n',
    typeError: 'def f(a):\n    return a + "s"\ndef g():\n    return 1 + f(2)\ng()\n',
    index: 'def f(l):\n    return l[5]\nf([1])\n',
    dictKey: 'def f():\n    return {"a": 1}["b"]\nf()\n',
    duplicateKey: 'def f(k):\n    return {k: 1, "a": 2}\nf("a")\n',
    attr: 'def f(x):\n    return x.nope\nf(1)\n',
    method: 'def f(x):\n    return x.append(1, 2)\nf([])\n',
    builtin: 'def f(x):\n    return int(x)\nf("z")\n',
    call: 'def f(x):\n    return x(1)\nf(3)\n',
    arity: 'def g(a):\n    return a\ndef f():\n    return g(1, 2)\nf()\n',
    kwarg: 'def g(a):\n    return a\ndef f():\n    return g(b = 1)\nf()\n',
    unpack: 'def f():\n    a, b = [1, 2, 3]\nf()\n',
    frozen: 'L = [1]\ndef f():\n    L.append(2)\n',
    mutateWhileIterating: 'def f():\n    l = [1, 2]\n    for x in l:\n        l.append(x)\nf()\n',
    mutateDictWhileIterating:
      'def f():\n    d = {1: 2}\n    for k in d:\n        d[k + 1] = 0\nf()\n',
    recursive: 'def f(n):\n    return f(n - 1) if n else 0\nf(3)\n',
    divide: 'def f(a, b):\n    return [a // b, a % b]\nf(1, 0)\n',
    notIterable: 'def f():\n    for x in 3:\n        pass\nf()\n',
    augIndex: 'def f():\n    d = {}\n    d["k"] += 1\nf()\n',
    augType: 'def f():\n    x = 1\n    x += "a"\nf()\n',
    shift: 'def f(a, b):\n    return a >> b\nf(1, -1)\n',
    shiftLarge: 'def f(a, b):\n    return a >> b\nf(1, 600)\n',
    fusedTypeMul: 'def f(a, m):\n    return (a * 3 + 1) % m\nf("s", 1 << 64)\n',
    fusedTypeAdd: 'def f(a, c, m):\n    return (a * 3 + c) % m\nf(2, "s", 1 << 64)\n',
    fusedTypeMod: 'def f(a, c, m):\n    return (a * 3 + c) % m\nf(2, 1, "s")\n',
    fusedSmall: 'def f(a, c):\n    return (a * 3 + c) % 8\nf(2, "s")\n',
    fusedZero: 'def f(a, c, m):\n    return (a * 3 + c) % m\nf(2, 1, 0)\n',
    shiftType: 'def f(a, b):\n    return a >> b\nf(1, "a")\n',
    negate: 'def f(x):\n    return -x\nf("a")\n',
    compare: 'def f(a, b):\n    return a < b\nf(1, "a")\n',
    fail: 'def f():\n    fail("boom", 1)\nf()\n',
    deep: 'def f(n):\n    return f(n + 1)\nf(0)\n',
  };

  for (const [name, src] of Object.entries(errors)) {
    it(`fails ${name} with the same message, position and call stack`, () => {
      const opts = name === 'recursive' ? {} : REC;
      const src2 = name === 'frozen' ? src + 'def g():\n    f()\n' : src;
      const o = same(src2, opts);
      if (name !== 'frozen') expect(o.error).toBeDefined();
      if (name.startsWith('unbound'))
        expect(String(o.error)).toMatch(/referenced before assignment/);
    });
  }

  it('fails on frozen globals called after the module ends, as the closures do', () => {
    for (const codegen of [true, false]) {
      const m = execModule({
        file: 'g.star',
        source: 'L = [1]\ndef f():\n    L.append(2)\n',
        codegen,
      });
      const fn = m.globals.get('f') as StarFunction;
      expect(() => fn.call(m.thread, [], null)).toThrow(/frozen/);
    }
  });

  it('counts the same steps under limits and stops at the same step', () => {
    const src =
      'def f():\n    n = 0\n    for i in range(1000000):\n        n += i\n    return n\nf()\n';
    same(src, { limits: { maxSteps: 5000 } });
    same('def f(n):\n    return f(n + 1)\nf(0)\n', { ...REC, limits: { maxDepth: 50 } });
  });

  it('never puts script text into generated source: hostile names and strings', () => {
    const hostile = [
      "'",
      '"',
      '`',
      '*/',
      '/*',
      '//',
      '\u2028',
      '\u2029',
      '${x}',
      '\\',
      '</script>',
      "'); throw 1; ('",
    ];
    const lits = hostile.map((s) => JSON.stringify(s)).join(', ');
    const src = `
def constructor(__proto__, toString, K = "K", *R, **th):
    eval = [${lits}]
    Function = {}
    for l0 in eval:
        Function[l0] = len(l0)
    k0 = {"a\\u2028b": 1, "\`\${k0}\`": 2}
    f = k0
    return eval, Function, sorted(f.keys()), __proto__, toString, K, R, th
r = constructor(1, 2)
r2 = constructor("*/", "\`", "\\u2028", t0 = "\${}")
`;
    const o = same(src);
    expect(o.error).toBeUndefined();
    expect(generated(src)).toEqual({ constructor: true });
    expect(o.globals).toContain('"*/"');
  });
});
