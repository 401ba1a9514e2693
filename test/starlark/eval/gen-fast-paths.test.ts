import { describe, expect, it } from 'vitest';
import type { ExecModuleOptions } from '../../../src/starlark/index.js';
import {
  errorsAfterFreeze,
  same as sameProgram,
  type Outcome,
} from '../../support/starlark-backends.js';

/**
 * The generated code's inline fast paths (eval/gen-fast-call.ts, the inline `a[i]`, string
 * concatenation and bigint shapes) against the closure compiler: the fast case, the fallback
 * when the receiver, argument or builtin is something else, and errors raised on the way, which
 * must carry the same message, position, call stack, traceback and step count.
 */

/** Runs `body` (indented into `def f():`) on both backends; returns the generated one's outcome. */
function same(body: string, opts: Partial<ExecModuleOptions> = {}): Outcome {
  const src = `def f():\n${body
    .trim()
    .split('\n')
    .map((l) => '    ' + l)
    .join('\n')}\nr = f()\n`;
  return sameProgram(src, opts);
}

function sameError(body: string, message: string, opts: Partial<ExecModuleOptions> = {}): void {
  const out = same(body, opts);
  expect(out.error).toContain(message);
}

describe('builtin fast paths', () => {
  it('len, ord, chr, str and range give the generic results', () => {
    const out = same(`
s = "héllo😀"
return [len(s), len([1, 2]), len((1,)), len({"a": 1}), len(set([1])), len(range(5)), len(b"ab"),
        [ord(c) for c in s.elems()], ord("😀"), ord(b"a"), chr(97), chr(0xd7ff), chr(0xd800),
        chr(0x1f600), str("x"), str(12), str(-3), str(1 << 70), str(1.5), str([1, "a"]), str(None),
        str(True), list(range(4)), list(range(-2)), range(3)]
`);
    expect(out.globals).toContain('128512');
  });

  it.each([
    ['len(3)', 'len: value of type int has no len'],
    ['ord("ab")', 'ord: string encodes 2 Unicode code points, want 1'],
    ['ord(1)', 'ord: got int, want string or bytes'],
    ['chr(-1)', 'chr: Unicode code point -1 out of range (<0)'],
    ['chr(1 << 70)', 'out of range (>0x10FFFF)'],
    ['chr("a")', 'chr: got string, want int'],
    ['range(1 << 70)', 'range: stop'],
    ['range("a")', 'range: for parameter stop: got string, want int'],
  ])('%s fails as the generic call does', (call, message) => {
    sameError(`x = 1\nreturn ${call}`, message);
  });

  it('calls the script binding of a shadowed builtin name', () => {
    const src = `
def len(x):
    return 42
def g(str):
    return [len("abc"), str(5)]
r = g(lambda v: "s%d" % v)
`;
    const gen = sameProgram(src, {});
    expect(gen.globals).toBe('r=[42, "s5"]');
  });

  it('calls a host value predeclared under a builtin name', () => {
    const src = 'def f():\n    return len("abc")\nr = f()\n';
    const opts = { predeclared: new Map([['len', 'not callable']]) };
    const gen = sameProgram(src, opts);
    expect(gen.error).toContain('invalid call of non-function (string)');
  });
});

describe('method fast paths', () => {
  it('append, startswith and endswith give the generic results', () => {
    same(`
out = []
for i in range(5):
    out.append(i)
    out.append(str(i) * i)
t = ("ab", "cd")
return [out, "abc".startswith("ab"), "abc".startswith(t), "abc".endswith("bc"), "cd".endswith(t),
        "abc".startswith("abc", 1), "abc".endswith("")]
`);
  });

  it.each([
    ['x = [1]\nfor v in x:\n    x.append(v)', 'cannot append to list during iteration'],
    ['x = {}\nx.append(1)', 'dict has no .append field or method'],
    ['x = "s"\nx.append(1)', 'string has no .append field or method'],
    ['x = []\nx.append()', 'append: got 0 arguments, want 1'],
    ['x = []\nx.append(1, 2)', 'append: got 2 arguments, want 1'],
    ['x = "abc"\nx.startswith(1)', 'startswith: got int, want string or tuple of string'],
    ['x = "abc"\nx.endswith(("a", 1))', 'endswith: want string, got int, for element 1'],
    ['x = [1]\nx.startswith("a")', 'list has no .startswith field or method'],
  ])('%s fails as the generic call does', (body, message) => {
    sameError(body, message);
  });

  it('get, lower, upper and replace give the generic results', () => {
    same(`
d = {"a": 1, 2: "two", (1, 2): 3, 1.5: "f"}
long = "Mixed Case " * 10
return [d.get("a"), d.get("b"), d.get("b", 0), d.get(2, 0), d.get((1, 2)), d.get(1.5), d.get(1),
        "AbC".lower(), "AbC".upper(), long.lower(), long.upper(), "é".upper(),
        "a-b-c".replace("-", "+"), long.replace("Case", "x"), "abc".replace("z", "y")]
`);
  });

  it.each([
    ['d = {}\nd.get([1])', 'get: unhashable type: list'],
    ['d = {}\nd.get()', 'get: got 0 arguments, want at least 1'],
    ['d = []\nd.get(1)', 'list has no .get field or method'],
    ['s = "a"\ns.lower(1)', 'lower: got 1 arguments, want 0'],
    ['s = [1]\ns.upper()', 'list has no .upper field or method'],
    ['s = "abc"\ns.replace(1, "x")', 'replace: for parameter old: got int, want string'],
    ['s = "abc"\ns.replace("a", None)', 'replace: for parameter new: got NoneType, want string'],
    ['s = (1,)\ns.replace("a", "b")', 'tuple has no .replace field or method'],
    ['s = [1]\ns.constructor(1)', 'list has no .constructor field or method'],
    ['s = "a"\ns.toString()', 'string has no .toString field or method'],
    ['s = {}\ns.__proto__(1, 2)', 'dict has no .__proto__ field or method'],
    ['s = {}\ns.hasOwnProperty("a")', 'dict has no .hasOwnProperty field or method'],
  ])('%s fails as the generic call does', (body, message) => {
    sameError(body, message);
  });

  it('charges long strings the same steps', () => {
    const long = '"' + 'x'.repeat(300) + '"';
    for (let n = 1; n < 40; n += 3)
      same(
        `s = ${long}\nfor i in range(10):\n    s.lower()\n    s.upper()\n    s.replace("x", "y")`,
        {
          limits: { maxSteps: n },
        },
      );
  });

  it('refuses to append to a frozen list', () => {
    const src = 'x = []\ndef f(v):\n    x.append(v)\n';
    const errors = errorsAfterFreeze(src, [1]);
    expect(errors[0]).toEqual(errors[1]);
    expect(errors[0]![0]).toContain('cannot append to frozen list');
  });

  it('refuses to update a frozen list in place', () => {
    const src = 'x = [1]\ndef f(v):\n    x[0] += v\n';
    const errors = errorsAfterFreeze(src, [1]);
    expect(errors[0]).toEqual(errors[1]);
    expect(errors[0]![0]).toContain('frozen list');
  });

  it('reports a later step-limit error at the same position', () => {
    for (let n = 40; n < 60; n++)
      same(
        `out = [0]\nfor i in range(100):\n    out.append(i)\n    out[0] += i\n    "a".startswith("a")`,
        {
          limits: { maxSteps: n },
        },
      );
  });
});

describe('inline operators', () => {
  it('indexes lists, tuples and strings as idx does', () => {
    same(`
l = [1, 2, 3]
t = (4, 5)
s = "héllo"
d = {0: "zero", "k": 1}
return [l[0], l[2], l[-1], t[1], t[-2], s[0], s[4], s[-1], d[0], d["k"], range(5)[3], b"ab"[1]]
`);
  });

  it.each([
    ['[1][1]', 'list index 1 out of range'],
    ['(1, 2)[-3]', 'tuple index -3 out of range'],
    ['"ab"[2]', 'string index 2 out of range'],
    ['[1][True]', 'got bool, want int'],
    ['"ab"[1.0]', 'got float, want int'],
    ['(1,)[1 << 70]', 'out of range'],
    ['{}[0]', 'key 0 not in dict'],
    ['None[0]', 'unhandled index operation NoneType[int]'],
  ])('%s fails as idx does', (expr, message) => {
    sameError(`x = 1\ni = 0\nreturn ${expr}`, message);
  });

  it('updates list elements in place with += as augIndex does', () => {
    same(`
l = [1, "a", [2], 9007199254740990, 5]
d = {"k": 1}
i = 0
l[0] += 2
l[i] += 3
l[1] += "b"
l[2] += [3]
l[3] += 5
l[-1] += 1
l[4] -= 10
d["k"] += 1
t = [0]
for j in range(5):
    t[0] += j
return [l, d, t]
`);
  });

  it.each([
    ['l = [1]\nl[1] += 1', 'list index 1 out of range'],
    ['l = [1]\nl[-2] += 1', 'list index -2 out of range'],
    ['l = [1]\nl["a"] += 1', 'got string, want int'],
    ['l = [1]\nl[0] += "a"', 'unknown binary op: int + string'],
    ['l = [1]\nfor v in l:\n    l[0] += 1', 'cannot assign to element of list during iteration'],
    ['l = [1, 2]\nl[1] += l.pop()', 'list index 1 out of range'],
    ['t = (1,)\nt[0] += 1', 'tuple'],
    ['d = {}\nd["k"] += 1', 'key "k" not in dict'],
  ])('%s fails as augIndex does', (body, message) => {
    sameError(body, message);
  });

  it('assigns list elements in place as setIndex does', () => {
    same(`
l = [0] * 6
i = 2
l[0] = "a"
l[i] = [1]
l[-1] = 9
l[i + 1] = l[i]
d = {}
d["k"] = 1
d[3] = l
flags = [True] * 30
for p in range(2, 6):
    for j in range(p * p, 30, p):
        flags[j] = False
return [l, d, [n for n in range(2, 30) if flags[n]]]
`);
  });

  it.each([
    ['l = [1]\nl[1] = 0', 'list index 1 out of range'],
    ['l = [1]\nl[-2] = 0', 'list index -2 out of range'],
    ['l = [1]\nl["a"] = 0', 'got string, want int'],
    ['l = [1]\nl[1 << 70] = 0', 'out of range'],
    ['l = [1]\nfor v in l:\n    l[0] = 2', 'cannot assign to element of list during iteration'],
    ['t = (1,)\nt[0] = 2', 'tuple value does not support item assignment'],
    ['s = "ab"\ns[0] = "c"', 'string value does not support item assignment'],
  ])('%s fails as setIndex does', (body, message) => {
    sameError(body, message);
  });

  it('refuses to assign to an element of a frozen list', () => {
    const src = 'x = [1]\ndef f(v):\n    x[0] = v\n';
    const errors = errorsAfterFreeze(src, [1]);
    expect(errors[0]).toEqual(errors[1]);
    expect(errors[0]![0]).toContain('frozen list');
  });

  it('builds ranges with start, stop and step as rangeFn does', () => {
    same(`
a, b, c = 3, 20, 4
return [list(range(a, b)), list(range(a, b, c)), list(range(b, a, -c)), list(range(5, 5)),
        list(range(-3, 3, 2)), range(a, b, c), len(range(0, 100, 7)), list(range(10, 0))]
`);
  });

  it.each([
    ['n = 0\nreturn range(1, 5, n)', 'range: step argument must not be zero'],
    ['return range(1, 1 << 70)', 'range: stop'],
    ['return range("a", 3)', 'range: for parameter start: got string, want int'],
    ['return range(1, 3, 1.5)', 'want int'],
  ])('%s fails as rangeFn does', (body, message) => {
    sameError(body, message);
  });

  it('shifts, masks and updates ints in place as the generic operators', () => {
    same(`
M = (1 << 64) - 1
x = 88172645463325252
out = []
for i in range(20):
    x ^= (x << 13) & M
    x ^= x >> 7
    x ^= (x << 17) & M
    out.append(x)
y = 5
y <<= 60
z = -3
z &= 255
w = 1 << 70
w -= (1 << 70) - 7
v = 6
v |= 1 << 40
u = 0xFFFFFFFF
u &= 0x7FFFFFFF
return [out, y, z, w, v, u, 1 << 0, -1 << 52, -1 << 53, 3 << 511, 0 << 500, (1 << 70) << 3,
        -5 & 3, 2147483648 & 2147483647, (1 << 40) & ((1 << 41) - 1), 7 & (1 << 70)]
`);
    // Big ints meeting big ints: results back in the safe range are plain ints again.
    same(`
big = 1 << 70
t = big
t ^= big + 5
s = big
s ^= 3
return [big ^ (big + 5), big ^ 3, 3 ^ big, big >> 60, (-big) >> 69, big >> 0, big >> 511,
        (-big - 1) >> 511, t, s, big << 0, big << 1, type(big ^ big), type(big >> 60)]
`);
  });

  it.each([
    ['x = 1\nreturn x << -1', 'negative shift count'],
    ['x = 1 << 70\nreturn x << -1', 'negative shift count'],
    ['x = 1 << 70\nreturn x >> 512', 'shift count too large'],
    ['x = 1 << 70\nreturn x ^ 2.0', 'unknown binary op: int ^ float'],
    ['x = 1 << 70\nx ^= "a"\nreturn x', 'unknown binary op: int ^ string'],
    ['x = 1\nreturn x << 512', 'shift count too large'],
    ['x = 1\nreturn x << (1 << 70)', 'shift count too large'],
    ['x = "a"\nreturn x << 1', 'unknown binary op: string << int'],
    ['x = 1.5\nreturn x << 1', 'unknown binary op: float << int'],
    ['x = 1\nx <<= -2\nreturn x', 'negative shift count'],
    ['x = 1\nx ^= "a"\nreturn x', 'unknown binary op: int ^ string'],
    ['x = 1.0\nx &= 1\nreturn x', 'unknown binary op: float & int'],
    ['x = [1]\nx -= [1]\nreturn x', 'unknown binary op: list - list'],
  ])('%s fails as the generic operator does', (body, message) => {
    sameError(body, message);
  });

  it('counts through range loops as the generic loop does', () => {
    same(`
out = []
for i in range(10):
    if i == 2:
        continue
    if i == 7:
        break
    out.append(i)
for i in range(10, 0, -3):
    out.append(i)
for i in range(0):
    out.append("never")
for a, b in [(1, 2)]:
    out.append(a + b)
n = 0
for i in range(3):
    for j in range(i, 4):
        n += j
return [out, n, i, [x * y for x in range(1, 4) for y in range(x) if y % 2 == 0]]
`);
  });

  it('loops over a range-named local or host value generically', () => {
    const src = `
def f(range):
    return [i for i in range(3)]
def g():
    range = lambda n: ["a", "b"][:n]
    return [i for i in range(2)]
r = [f(lambda n: [n, n]), g()]
`;
    expect(sameProgram(src).globals).toContain('r=[[3, 3], ["a", "b"]]');
    // A host value named range is called, not the builtin.
    const host = sameProgram('def f():\n    return [i for i in range(2)]\nr = f()\n', {
      predeclared: { range: 7 },
    });
    expect(host.error).toContain('invalid call of non-function');
  });

  it.each([
    ['for i in range(1, 5, 0):\n    pass', 'range: step argument must not be zero'],
    ['for i in range("3"):\n    pass', 'got string, want int'],
    ['return [i for i in range(1, 2, 3, 4)]', 'range: got 4 arguments, want at most 3'],
  ])('%s fails as the generic loop does', (body, message) => {
    sameError(body, message);
  });

  it('stops a range loop at the same step and position', () => {
    for (let n = 5; n < 25; n++)
      same(`t = 0\nfor i in range(3, 30, 2):\n    t += i\n    t = t * 1`, {
        limits: { maxSteps: n },
      });
  });

  it('reads dict entries by string key as idx does', () => {
    same(`
rows = [{"name": "p%d" % i, "age": i * 7 % 50} for i in range(30)]
k = "age"
out = [r["name"] + ":" + str(r[k]) for r in rows if r["age"] > 20]
d = {1: "int", "1": "str", (1,): "tuple"}
return [out, d[1], d["1"], d[(1,)], {"a": None}["a"]]
`);
  });

  it.each([
    ['d = {"a": 1}\nreturn d["b"]', 'key "b" not in dict'],
    ['d = {"a": 1}\nk = "b"\nreturn d[k]', 'key "b" not in dict'],
    ['l = [1]\nreturn l["a"]', 'got string, want int'],
    ['s = "abc"\nk = "a"\nreturn s[k]', 'got string, want int'],
    ['t = (1,)\nreturn t["x"]', 'got string, want int'],
    ['n = 1\nreturn n["x"]', 'unhandled index operation int[string]'],
  ])('%s fails as idx does', (body, message) => {
    sameError(body, message);
  });

  it('compares with an int or string literal as the generic ==', () => {
    same(`
out = []
for x in [0, 1, "a", "", True, False, None, 0.0, 1.0, 1 << 60, [0], (0,)]:
    out.append([x == 0, x != 0, 0 == x, x == "a", "a" != x, x == 1, x == 1152921504606846976])
return out
`);
  });

  it('concatenates with a string literal as add does', () => {
    same('x = "b"\nreturn ["a" + x, x + "c", "a" + "b", "k-" + str(3) + "-v", "" + x + ""]');
    sameError('x = 1\nreturn "a" + x', 'unknown binary op: string + int');
    sameError('x = 1\nreturn x + "a"', 'unknown binary op: int + string');
    sameError('x = "abcdefgh"\nreturn "abc" + x', 'allocation of 11 elements exceeds the limit', {
      limits: { maxAlloc: 10 },
    });
  });

  it('mixes small ints into big ones with ^ as the generic operator', () => {
    const out = same(`
big = 14695981039346656037
neg = -9007199254740992
return [big ^ 97, big ^ 0, neg ^ 1, neg ^ 9007199254740991, (neg ^ 1) == -9007199254740991,
        5 ^ 3, -5 ^ 3, big ^ big, 97 ^ big, big ^ -1, 1.5 if False else 0]
`);
    expect(out.globals).toContain('True');
    sameError('x = 1 << 60\nreturn x ^ 1.5', 'unknown binary op: int ^ float');
  });

  it('keeps (h * K ± C) % 2^k with big literals or a modulus in a local as the generic operators', () => {
    same(`
m = 18446744073709551616
m3 = 18446744073709551615
out = []
for h in [0, 7, -7, 1 << 60, -(1 << 60), 14695981039346656037]:
    out.append([(h * 1099511628211) % 18446744073709551616,
                (h * 6364136223846793005 + 1442695040888963407) % m,
                (h * 6364136223846793005 - 1442695040888963407) % m,
                (h * 1099511628211) % m3, (h + 18446744073709551617) % m])
return out
`);
    sameError('m = 0\nh = 1 << 60\nreturn (h * 3) % m', 'integer modulo by zero');
    sameError('m = 18446744073709551616\nh = None\nreturn (h * 3) % m', 'NoneType * int');
  });
});

describe('str.replace', () => {
  it('replaces as the loop did', () => {
    same(`
s = "the quick brown fox " * 3
return [s.replace(" ", ""), s.replace("q", "Q"), s.replace("zz", "y"), s.replace("o", "0", 2),
        "aaa".replace("aa", "b"), "abc".replace("", "-"), "abc".replace("", "-", 2),
        "abc".replace("b", "$&"), s.replace("o", "0", -1), s.replace("fox", "dog", 0)]
`);
  });

  it('fails with the first partial result too large, as the loop did', () => {
    sameError('s = "ab" * 5\nreturn s.replace("a", "xxxx")', 'allocation of 24 elements', {
      limits: { maxAlloc: 20 },
    });
    same('s = "ab" * 5\nreturn s.replace("a", "xx")', { limits: { maxAlloc: 20 } });
  });
});
