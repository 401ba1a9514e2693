import { describe, expect, it } from 'vitest';
import {
  Builtin,
  Dict,
  List,
  None,
  repr,
  SFloat,
  StarSet,
  Tuple,
  type Value,
} from '../../../src/starlark/values/index.js';
import { FakeThread } from '../values/fake-thread.js';
import { call, method, thread } from '../values/helpers.js';

const r = (v: Value) => repr(v);
const list = (...xs: Value[]) => new List(xs);

describe('conversions', () => {
  it('parses ints with bases and prefixes', () => {
    expect(call('int', ['0x1f', 0])).toBe(31);
    expect(call('int', ['-0o17', 8])).toBe(-15);
    expect(call('int', ['123456789012345678901234567890'])).toBe(123456789012345678901234567890n);
    expect(() => call('int', ['0123', 0])).toThrow('invalid literal with base 0: 0123');
    expect(() => call('int', [' 42 '])).toThrow('invalid literal');
    expect(() => call('int', [3, 10])).toThrow('non-string with explicit base');
    expect(call('int', [new SFloat(-3.9)])).toBe(-3);
    expect(() => call('int', [new SFloat(Infinity)])).toThrow(
      'cannot convert float infinity to integer',
    );
  });
  it('parses floats strictly', () => {
    expect(call('float', ['1e3'])).toEqual(new SFloat(1000));
    expect(r(call('float', ['-Inf']))).toBe('-inf');
    expect(() => call('float', ['1e1000'])).toThrow('floating-point number too large');
    expect(() => call('float', ['0x10'])).toThrow('invalid float literal');
  });
  it('builds containers', () => {
    expect(r(call('dict', [list(new Tuple(['a', 1]))], [['b', 2]]))).toBe('{"a": 1, "b": 2}');
    expect(() =>
      call(
        'dict',
        [],
        [
          ['a', 1],
          ['a', 2],
        ],
      ),
    ).toThrow('dict: duplicate keyword arg: "a"');
    expect(r(call('set', [list(3, 1, 3)]))).toBe('set([3, 1])');
    expect(r(call('tuple', [call('range', [3])]))).toBe('(0, 1, 2)');
    expect(() => call('list', ['abc'])).toThrow('got string, want iterable');
    expect(r(call('bytes', [list(65, 66)]))).toBe('b"AB"');
  });
  it('slices ranges lazily', () => {
    const rg = call('range', [0, 10, 3]);
    expect(call('len', [rg])).toBe(4);
    expect(r(call('list', [rg]))).toBe('[0, 3, 6, 9]');
    expect(() => call('range', [2n ** 64n])).toThrow('out of range');
  });
});

describe('ordering builtins', () => {
  it('sorts stably with key and reverse', () => {
    const key = new Builtin('len', (_t, args) => (args[0] as string).length);
    expect(r(call('sorted', [list('bb', 'a', 'cc', 'd')], [['key', key]]))).toBe(
      '["a", "d", "bb", "cc"]',
    );
    expect(r(call('sorted', [list(3, 1, 2)], [['reverse', true]]))).toBe('[3, 2, 1]');
    expect(() => call('sorted', [list(1, 2, None, 3)])).toThrow('int < NoneType not implemented');
  });
  it('finds extrema', () => {
    expect(call('min', [list(3, 1, 2)])).toBe(1);
    expect(call('max', [3, 7, 5])).toBe(7);
    expect(call('max', [list()], [['default', 'none']])).toBe('none');
    expect(() => call('min', [1])).toThrow('not iterable');
    expect(() => call('min', [list()])).toThrow('empty');
  });
});

describe('general builtins', () => {
  it('covers the small ones', () => {
    expect(call('abs', [-5])).toBe(5);
    expect(call('abs', [-(2n ** 70n)])).toBe(2n ** 70n);
    expect(call('all', [list(1, true)])).toBe(true);
    expect(call('any', [list(0, '')])).toBe(false);
    expect(r(call('enumerate', [list('a', 'b'), 1]))).toBe('[(1, "a"), (2, "b")]');
    expect(r(call('zip', [list(1, 2), list('a')]))).toBe('[(1, "a")]');
    expect(r(call('reversed', [list(1, 2)]))).toBe('[2, 1]');
    expect(call('chr', [65])).toBe('A');
    expect(call('ord', ['😀'])).toBe(0x1f600);
    expect(call('hash', ['abc'])).toBe(96354);
    expect(call('type', [new StarSet()])).toBe('set');
    expect(call('repr', ['x'])).toBe('"x"');
    expect(() => call('fail', [1, 2], [['sep', '/']])).toThrow('fail: 1/2');
  });
  it('reads attributes with hints', () => {
    expect(call('hasattr', [new Dict(), 'keys'])).toBe(true);
    expect(call('getattr', [list(), 'nope', 0])).toBe(0);
    expect(() => call('getattr', ['', 'startwith'])).toThrow('did you mean .startswith?');
    expect(r(call('dir', [list()]))).toBe(
      '["append", "clear", "extend", "index", "insert", "pop", "remove"]',
    );
  });
  it('prints through the thread', () => {
    const t = new FakeThread();
    const print = thread.call.bind(t);
    void print;
    call('print', ['a', 1]);
    expect(thread.printed.at(-1)).toBe('a 1');
  });
  it('charges allocation before building big results', () => {
    const t = new FakeThread(Infinity, 10);
    const zip = call('getattr', [list(), 'extend']) as Builtin;
    const big = new List(Array.from({ length: 20 }, (_, i) => i));
    expect(() => zip.call(t, [big], null)).toThrow('too large');
  });
});

describe('container methods', () => {
  it('mutates lists with starlark-go errors', () => {
    const l = list(1, 2, 3);
    method(l, 'insert', [-1, 9]);
    expect(r(l)).toBe('[1, 2, 9, 3]');
    expect(method(l, 'pop')).toBe(3);
    expect(() => method(l, 'pop', [5])).toThrow('pop: list index 5 out of range [-3:2]');
    expect(() => method(l, 'remove', [7])).toThrow('remove: element not found');
    l.freeze();
    expect(() => method(l, 'append', [1])).toThrow('append: cannot append to frozen list');
  });
  it('handles dict methods', () => {
    const d = Dict.fromEntries([['a', 1]]);
    expect(method(d, 'setdefault', ['b', 2])).toBe(2);
    expect(method(d, 'get', ['z'])).toBe(None);
    expect(r(method(d, 'popitem'))).toBe('("a", 1)');
    method(d, 'update', [], [['c', 3]]);
    expect(r(method(d, 'items'))).toBe('[("b", 2), ("c", 3)]');
    expect(() => method(d, 'pop', ['zz'])).toThrow('pop: missing key');
    expect(() => method(d, 'get', ['a'], [['default', 1]])).toThrow(
      'get: unexpected keyword arguments',
    );
  });
  it('handles set methods', () => {
    const s = StarSet.of([1, 2, 3]);
    expect(r(method(s, 'union', [list(4)]))).toBe('set([1, 2, 3, 4])');
    expect(r(method(s, 'intersection', [list(2, 3, 9)]))).toBe('set([2, 3])');
    expect(method(s, 'issubset', [list(1, 2, 3, 4)])).toBe(true);
    method(s, 'difference_update', [list(1)]);
    expect(r(s)).toBe('set([2, 3])');
    expect(() => method(s, 'remove', [9])).toThrow('remove: missing key');
    expect(() => method(s, 'union', [1])).toThrow('union: argument #1 is not iterable: int');
  });
});

describe('allocation limits', () => {
  it('refuses to materialise huge lazy sequences', () => {
    const t = new FakeThread(Infinity, 1000);
    const list = call('getattr', [new List(), 'extend']) as Builtin;
    const rg = call('range', [1000000000]);
    expect(() => list.call(t, [rg], null)).toThrow('too large');
  });
});

describe('step charging', () => {
  it('charges work proportional to big inputs', () => {
    const t = new FakeThread(100, 1e9);
    const big = 'x'.repeat(100000);
    const find = call('getattr', [big, 'find']) as Builtin;
    expect(() => find.call(t, ['y'], null)).toThrow('too many steps');
    const small = new FakeThread(100, 1e9);
    (call('getattr', ['abc', 'find']) as Builtin).call(small, ['b'], null);
    expect(small.stepCount).toBe(0);
  });
});
