import { describe, expect, it } from 'vitest';
import {
  binary,
  compare,
  Dict,
  equals,
  inplaceBinary,
  index,
  List,
  None,
  repr,
  SFloat,
  slice,
  str,
  Tuple,
  unary,
  freeze,
  iterate,
  setIndex,
  StarSet,
  toJS,
  toStarlark,
} from '../../../src/starlark/values/index.js';
import { FakeThread } from './fake-thread.js';

const t = new FakeThread();
const f = (v: number) => new SFloat(v);

describe('int arithmetic', () => {
  it('overflows to bigint and back', () => {
    const big = binary('*', 2 ** 40, 2 ** 40, t);
    expect(big).toBe(2n ** 80n);
    expect(binary('//', big, 2 ** 40, t)).toBe(2 ** 40);
    expect(binary('+', Number.MAX_SAFE_INTEGER, 1, t)).toBe(2n ** 53n);
    expect(binary('-', 2n ** 53n, 1, t)).toBe(Number.MAX_SAFE_INTEGER);
  });
  it('uses floor semantics', () => {
    expect(binary('//', -7, 2, t)).toBe(-4);
    expect(binary('%', -7, 2, t)).toBe(1);
    expect(binary('%', 7, -2, t)).toBe(-1);
    expect(Object.is(binary('*', 0, -5, t), 0)).toBe(true);
    expect(Object.is(binary('%', -4, 2, t), 0)).toBe(true);
    expect(binary('//', -(2n ** 70n), 3, t)).toBe(-(2n ** 70n / 3n) - 1n);
  });
  it('reports division by zero', () => {
    expect(() => binary('//', 1, 0, t)).toThrow('division by zero');
    expect(() => binary('/', 1, f(0), t)).toThrow('floating-point division by zero');
    expect(() => binary('%', f(1), 0, t)).toThrow('floating-point modulo by zero');
  });
  it('does bit operations', () => {
    expect(binary('<<', 1, 70, t)).toBe(2n ** 70n);
    expect(binary('>>', 2n ** 70n, 69, t)).toBe(2);
    expect(binary('&', 0xff00ff00ff, 0xffff, t)).toBe(0xff);
    expect(unary('~', 1)).toBe(-2);
    expect(() => binary('<<', 1, 512, t)).toThrow('shift count too large');
  });
  it('mixes int and float', () => {
    expect(binary('/', 1, 2, t)).toEqual(f(0.5));
    expect(binary('+', 1, f(0.5), t)).toEqual(f(1.5));
    expect(equals(1, f(1))).toBe(true);
    expect(equals(2n ** 60n, f(2 ** 60))).toBe(true);
    expect(() => binary('+', 1n << 1100n, f(0), t)).toThrow('int too large to convert to float');
  });
});

describe('bitwise and with all-ones masks', () => {
  it("agrees with two's complement & for any sign, size and mask, number or bigint", () => {
    const values = [0n, 1n, -1n, 5n, -5n, 255n, 2n ** 31n, -(2n ** 60n) - 7n, 2n ** 64n + 12345n];
    values.push(88172645463325252n << 13n, -(3n ** 50n), 2n ** 53n - 1n, -(2n ** 53n) + 1n);
    const masks = [1n, 0xffn, 0xffffffffn, 2n ** 53n - 1n, 2n ** 64n - 1n, 2n ** 100n - 1n];
    masks.push(0n, 6n, 2n ** 64n, 2n ** 53n - 2n, -1n);
    const int = (v: bigint) => (v >= -(2n ** 53n) + 1n && v <= 2n ** 53n - 1n ? Number(v) : v);
    for (const v of values) {
      for (const m of masks) {
        const want = int(v & m);
        expect(binary('&', int(v), int(m), t)).toStrictEqual(want);
        expect(binary('&', int(m), int(v), t)).toStrictEqual(want);
      }
    }
  });
});

describe('strings and sequences', () => {
  it('repeats with an allocation check first', () => {
    expect(binary('*', 'ab', 3, t)).toBe('ababab');
    expect(() => binary('*', 'x', 10000000000, t)).toThrow('repeat count 10000000000 too large');
    expect(() => binary('*', new List([0]), 1000000000, t)).toThrow(/excessive repeat|too large/);
  });
  it('repeats lists and tuples of any length any number of times, in order', () => {
    for (const n of [0, 1, 2, 3, 7]) {
      const items = Array.from({ length: n }, (_, i) => `v${i}`);
      for (const count of [-2, 0, 1, 2, 3, 5, 8, 13, 100]) {
        const want = Array.from({ length: Math.max(0, count) }, () => items).flat();
        expect(toJS(binary('*', new List(items), count, t) as List)).toEqual(want);
        expect(toJS(binary('*', count, new Tuple(items), t) as Tuple)).toEqual(want);
      }
    }
  });
  it('formats with %', () => {
    expect(binary('%', '%d %s %r %x', new Tuple([3, 'a', 'b', 255]), t)).toBe('3 a "b" ff');
    expect(
      binary(
        '%',
        '%(a)s-%(b)d',
        Dict.fromEntries([
          ['a', 'x'],
          ['b', 2],
        ]),
        t,
      ),
    ).toBe('x-2');
    expect(() => binary('%', '%d %d', 1, t)).toThrow('not enough arguments');
    expect(binary('%', '%e|%f|%g', new Tuple([f(1.5), f(1.5), f(1e6)]), t)).toBe(
      '1.500000e+00|1.500000|1e+06',
    );
  });
  it('indexes and slices', () => {
    const l = new List([1, 2, 3, 4]);
    expect(index(l, -1)).toBe(4);
    expect(() => index(l, 4)).toThrow('list index 4 out of range [-4:3]');
    expect(repr(slice(l, None, None, -2))).toBe('[4, 2]');
    expect(slice('hello', 1, -1, None)).toBe('ell');
    expect(slice('hello', None, None, -1)).toBe('olleh');
  });
  it('reports unknown operators with starlark-go wording', () => {
    expect(() => binary('+', 'a', 1, t)).toThrow('unknown binary op: string + int');
    expect(() => binary('in', 1, 'abc', t)).toThrow('requires string as left operand');
  });
  it('extends lists in place for +=', () => {
    const l = new List([1]);
    expect(inplaceBinary('+', l, new Tuple([2]), t)).toBe(l);
    expect(l.items).toEqual([1, 2]);
    freeze(l);
    expect(() => inplaceBinary('+', l, new List([3]), t)).toThrow('cannot apply += to frozen list');
  });
});

describe('repr and str', () => {
  it('formats floats like starlark-go', () => {
    expect(str(f(0))).toBe('0.0');
    expect(str(f(-0))).toBe('-0.0');
    expect(str(f(1e100))).toBe('1e+100');
    expect(str(f(123456))).toBe('123456.0');
    expect(str(f(1234567))).toBe('1.234567e+06');
    expect(str(f(1e-5))).toBe('1e-05');
    expect(str(f(0.0001))).toBe('0.0001');
    expect(str(f(NaN))).toBe('nan');
    expect(str(f(-Infinity))).toBe('-inf');
    expect(str(f(100 / 7))).toBe('14.285714285714286');
  });
  it('prints containers and cycles', () => {
    const l = new List([1, 'a', None, true]);
    expect(repr(l)).toBe('[1, "a", None, True]');
    l.items.push(l);
    expect(repr(l)).toBe('[1, "a", None, True, [...]]');
    expect(repr(new Tuple([1]))).toBe('(1,)');
    expect(repr(StarSet.of([1, 2]))).toBe('set([1, 2])');
    expect(repr('a"\n')).toBe('"a\\"\\n"');
  });
});

describe('comparison', () => {
  it('orders across numeric types and sequences', () => {
    expect(compare('<', 1, f(1.5))).toBe(true);
    expect(compare('<', 2n ** 70n, f(Infinity))).toBe(true);
    expect(compare('<', new List([1, 2]), new List([1, 3]))).toBe(true);
    expect(() => compare('<', 1, 'a')).toThrow('int < string not implemented');
  });
  it('detects cycles', () => {
    const l = new List([1]);
    l.items.push(l);
    expect(() => equals(l, l)).toThrow('maximum recursion');
  });
});

describe('dict', () => {
  it('unifies equal int and float keys and keeps order', () => {
    const d = new Dict();
    d.set(1, 'a');
    d.set(f(1), 'b');
    d.set(new Tuple([1, 'x']), 'c');
    d.set('1', 'd');
    expect(d.size).toBe(3);
    expect(index(d, 1)).toBe('b');
    expect(index(d, new Tuple([f(1), 'x']))).toBe('c');
    expect(repr(d)).toBe('{1: "b", (1, "x"): "c", "1": "d"}');
    expect(() => d.set(new List(), 1)).toThrow('unhashable type: list');
  });
  it('refuses mutation while iterating or frozen', () => {
    const d = Dict.fromEntries([['a', 1]]);
    const it = iterate(d);
    expect(() => setIndex(d, 'b', 2)).toThrow('cannot insert into hash table during iteration');
    it.done();
    setIndex(d, 'b', 2);
    freeze(d);
    expect(() => setIndex(d, 'c', 3)).toThrow('cannot insert into frozen hash table');
  });
  it('finds string keys the same way before and after the table gets its index', () => {
    const d = new Dict();
    const names = Array.from({ length: 12 }, (_, i) => `k${i}`);
    for (const [i, k] of names.entries()) {
      d.set(k, i);
      // Every key so far, through whichever lookup the table has now.
      for (const [j, seen] of names.slice(0, i + 1).entries()) expect(index(d, seen)).toBe(j);
      expect(d.get(`k${i + 1}`)).toBeUndefined();
    }
    d.set('k3', 'again');
    d.delete('k0');
    expect(d.keyList()).toEqual(names.slice(1));
    expect(index(d, 'k3')).toBe('again');
    // A small table given other kinds of keys keeps its string keys findable.
    const small = Dict.fromEntries([
      ['a', 1],
      ['b', 2],
    ]);
    small.set(-1, 'neg');
    small.set(f(2.5), 'float');
    small.set(0, 'zero');
    small.delete('a');
    small.set('c', 3);
    expect(repr(small)).toBe('{"b": 2, -1: "neg", 2.5: "float", 0: "zero", "c": 3}');
    expect([index(small, 'b'), index(small, 'c'), index(small, -1)]).toEqual([2, 3, 'neg']);
    expect(small.get('a')).toBeUndefined();
  });
  it('finds int keys 0, 1, 2, ... without an index, and after any key that breaks the run', () => {
    // A model with the same semantics: JS Maps keep insertion order, a replaced key keeps its
    // place, and a key removed and added again goes last.
    let seed = 12345;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const keyOf = (k: unknown) =>
      k instanceof SFloat ? `n${k.v}` : `${typeof k}:${k}`.replace('number:', 'n');
    for (let round = 0; round < 150; round++) {
      const d = new Dict();
      const model = new Map<string, [Parameters<Dict['set']>[0], number]>();
      let next = 0;
      const check = () => {
        expect(d.keyList()).toEqual([...model.values()].map(([key]) => key));
        for (const [key, val] of model.values()) expect(d.get(key)).toBe(val);
        expect(d.get(next + 7)).toBeUndefined();
        expect(d.size).toBe(model.size);
      };
      const remove = (share: number) => {
        for (const [mk, [key]] of [...model]) {
          if (rand() >= share) continue;
          d.delete(key);
          model.delete(mk);
        }
      };
      for (let step = 0; step < 80; step++) {
        const r = rand();
        let k: Parameters<Dict['set']>[0];
        if (r < 0.7) k = next++;
        else if (r < 0.8) k = Math.floor(rand() * (next + 3));
        else if (r < 0.85) k = f(Math.floor(rand() * (next + 2)));
        else if (r < 0.9) k = -1 - Math.floor(rand() * 3);
        else if (r < 0.95) k = `s${Math.floor(rand() * 4)}`;
        else {
          remove(0.2);
          check();
          continue;
        }
        d.set(k, step);
        const known = model.get(keyOf(k));
        if (known) known[1] = step;
        else model.set(keyOf(k), [k, step]);
        check();
        // Now and then most keys go (the table compacts), and the run starts again.
        if (step === 50 && round % 3 === 0) {
          remove(0.9);
          check();
        }
      }
    }
  });

  it('survives many deletions', () => {
    const d = new Dict();
    for (let i = 0; i < 100; i++) d.set(i, i);
    for (let i = 0; i < 90; i++) d.delete(i);
    expect(d.keyList()).toEqual([90, 91, 92, 93, 94, 95, 96, 97, 98, 99]);
    expect(index(d, 95)).toBe(95);
  });
});

describe('JS conversion', () => {
  it('round-trips JSON-like data', () => {
    const v = toStarlark({ a: [1, 2.5, null], b: { c: true }, big: 2n ** 64n });
    expect(repr(v)).toBe('{"a": [1, 2.5, None], "b": {"c": True}, "big": 18446744073709551616}');
    expect(toJS(v)).toEqual({ a: [1, 2.5, null], b: { c: true }, big: 2n ** 64n });
  });
});

describe('freeze', () => {
  it('handles very deep nesting without recursion', () => {
    let v: List = new List();
    const inner = v;
    for (let i = 0; i < 200000; i++) v = new List([v]);
    freeze(v);
    expect(inner.frozen).toBe(true);
  });
});
