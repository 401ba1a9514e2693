import { describe, expect, it } from 'vitest';
import { execModule } from '../../../src/starlark/index.js';
import { same } from '../../support/starlark-backends.js';

/**
 * Generated functions reuse their frame objects by stack height (`EvalThread.genFrames`):
 * positions, call stacks, tracebacks and step counts must match the closure compiler's,
 * whichever frames were used before at that height, and across generated and closure-compiled
 * functions interleaved on one stack.
 */

const recursion = { options: { recursion: true } };

describe('reused frames of generated functions', () => {
  it('recursion builds and reads nested tuples', () => {
    const out = same(
      `
def build(d, s):
    if d == 0:
        return s % 10
    return (build(d - 1, s * 2 + 1), build(d - 1, s * 3 + 2))

def total(t, d):
    if d == 0:
        return t
    return total(t[0], d - 1) + total(t[1], d - 1)

r = total(build(8, 1), 8)
`,
      recursion,
    );
    expect(out.globals).toMatch(/^r=\d+$/);
  });

  it('an error deep in recursion after frames at its height were used by other functions', () => {
    const out = same(
      `
def a(n):
    if n == 0:
        return 0
    return a(n - 1) + 1

def b(n, x):
    if n == 0:
        return x[5]
    return b(n - 1, x) + 1

a(20)
a(3)
r = b(10, [1, 2])
`,
      recursion,
    );
    expect(out.error).toContain('index 5 out of range');
    expect(out.traceback).toContain('in b');
  });

  it('generated and closure-compiled functions interleaved on one stack', () => {
    // \`g\` captures a local, so it is closure-compiled; \`h\` is generated.
    const src = `
def h(n, fail):
    if n == 0:
        if fail:
            return 1 // 0
        return 1
    return g(n - 1, fail) + 1

def g(n, fail):
    k = n
    def inner():
        return k
    return h(n, fail) + inner() if n > 0 else h(0, fail)

r1 = g(6, False)
r2 = h(7, False)
r = g(5, True)
`;
    const out = same(src, recursion);
    expect(out.error).toContain('division by zero');
  });

  it('host builtins calling back into generated functions', () => {
    same(`
def key(x):
    return -x

def f(xs):
    return sorted(xs, key = key)

r = [f([3, 1, 2]), f([5, 4]), sorted([1, 2], key = key)]
`);
    const out = same(`
def key(x):
    return x["k"]

def f(xs):
    return sorted(xs, key = key)

r0 = f([{"k": 1}, {"k": 2}])
r = f([{"k": 1}, {}])
`);
    expect(out.error).toContain('key "k" not in dict');
  });

  it('stack overflow and recursion errors keep their call stacks', () => {
    const deep = same(
      `
def f(n):
    return f(n + 1)

f(0)
`,
      { ...recursion, limits: { maxDepth: 50 } },
    );
    expect(deep.error).toContain('Starlark stack overflow');
    const rec = same(`
def f(n):
    return f(n + 1) if n < 2 else 0

f(0)
`);
    expect(rec.error).toContain('called recursively');
  });

  it('step limits report the same position on both backends', () => {
    const out = same(
      `
def f(n):
    if n == 0:
        return 0
    return f(n - 1) + f(n - 1)

f(12)
`,
      { ...recursion, limits: { maxSteps: 1000 } },
    );
    expect(out.error).toContain('step limit');
  });

  it('recursion past the first batches of frames, failing at the bottom', () => {
    const out = same(
      `
def down(n):
    if n == 0:
        return [][1]
    return down(n - 1) + 1

def up(n):
    return 0 if n == 0 else up(n - 1) + 1

r0 = up(100)
r = down(300)
`,
      { ...recursion, limits: { maxDepth: 1000 } },
    );
    expect(out.error).toContain('index 1 out of range');
    expect(out.traceback?.match(/in down/g)?.length).toBe(301);
  });

  it('frames are made in batches: 64 at first, then twice the height reached', () => {
    const run = (depth: number) => {
      const { thread } = execModule({
        file: 'f.star',
        source: `def f(n):\n    return 0 if n == 0 else f(n - 1)\n\nr = f(${depth})\n`,
        options: { recursion: true },
      });
      // The call stack grows with them, so a generated call never stores past its end.
      expect(thread.frames.length).toBeGreaterThanOrEqual(thread.genFrames.length);
      return thread.genFrames.length;
    };
    // The module's own frame is at height 0, so f(n) reaches height n + 1.
    expect(run(3)).toBe(64);
    expect(run(62)).toBe(64);
    expect(run(63)).toBe(128);
    expect(run(200)).toBe(256);
  });
});
