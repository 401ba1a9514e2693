import { describe, expect, it } from 'vitest';
import {
  List,
  None as NoneV,
  repr,
  Tuple,
  type Value,
} from '../../../src/starlark/values/index.js';
import { call, method } from '../values/helpers.js';

const m = (s: string, name: string, ...args: Value[]) => method(s, name, args);
const r = (v: Value) => repr(v);

describe('str methods', () => {
  it('searches', () => {
    expect(m('banana', 'find', 'an')).toBe(1);
    expect(m('banana', 'rfind', 'an')).toBe(3);
    expect(m('banana', 'find', 'an', 2)).toBe(3);
    expect(m('banana', 'find', 'x')).toBe(-1);
    expect(() => m('banana', 'index', 'x')).toThrow('index: substring not found');
    expect(m('banana', 'count', 'a')).toBe(3);
    expect(m('banana', 'count', 'a', -3)).toBe(2);
    expect(m('hello', 'startswith', new Tuple(['x', 'he']))).toBe(true);
    expect(m('hello', 'endswith', 'lo', 0, 4)).toBe(false);
    expect(() => m('123', 'startswith', new Tuple([1]))).toThrow('got int, for element 0');
  });
  it('splits like starlark-go', () => {
    expect(r(m('  a b  c ', 'split'))).toBe('["a", "b", "c"]');
    expect(r(m('  a b  c ', 'split', NoneV, 1))).toBe('["a", "b  c "]');
    expect(r(m('  a b  c ', 'rsplit', NoneV, 1))).toBe('["  a b", "c"]');
    expect(r(m('a,b,,c', 'split', ','))).toBe('["a", "b", "", "c"]');
    expect(r(m('a,b,c', 'rsplit', ',', 1))).toBe('["a,b", "c"]');
    expect(() => m('a', 'split', '')).toThrow('empty separator');
    expect(r(m('a\nb\r\nc\n', 'splitlines'))).toBe('["a", "b", "c"]');
    expect(r(m('a\nb', 'splitlines', true))).toBe('["a\\n", "b"]');
  });
  it('splits short strings (an indexOf loop) and long ones (V8 split) alike', () => {
    // Either side of the 512-character cut-off, every separator shape gives what JS split does.
    for (const len of [0, 1, 30, 511, 512, 513, 2000]) {
      for (const sep of [',', ',,', 'ab']) {
        const s = Array.from({ length: len }, (_, i) => 'ab,c'[(i * 7) % 4]).join('');
        const want = s.split(sep);
        expect((m(s, 'split', sep) as List).items).toEqual(want);
        expect((m(s, 'rsplit', sep) as List).items).toEqual(want);
        expect((m(sep + s + sep, 'split', sep) as List).items).toEqual((sep + s + sep).split(sep));
      }
    }
    expect(r(m('a/b/c', 'partition', '/'))).toBe('("a", "/", "b/c")');
    expect(r(m('a/b/c', 'rpartition', '/'))).toBe('("a/b", "/", "c")');
  });
  it('transforms case and whitespace', () => {
    expect(m('hello world', 'title')).toBe('Hello World');
    expect(m('hELLO', 'capitalize')).toBe('Hello');
    expect(m('Hello World', 'istitle')).toBe(true);
    expect(m('ABC1', 'isupper')).toBe(true);
    expect(m('', 'isalpha')).toBe(false);
    expect(m('  x  ', 'strip')).toBe('x');
    expect(m('xxaxx', 'lstrip', 'x')).toBe('axx');
    expect(m('prefix-body', 'removeprefix', 'prefix-')).toBe('body');
    expect(m('aaa', 'replace', 'a', 'b', 2)).toBe('bba');
    expect(m('ab', 'replace', '', '-')).toBe('-a-b-');
  });
  it('joins and formats', () => {
    expect(m(', ', 'join', new List(['a', 'b']))).toBe('a, b');
    expect(() => m('', 'join', new List(['a', 1]))).toThrow('join: in list, want string, got int');
    expect(method('{} and {!r}', 'format', ['a', 'b'])).toBe('a and "b"');
    expect(method('{x}{{}}{0}', 'format', [1], [['x', 2]])).toBe('2{}1');
    expect(() => method('{}{1}', 'format', [1, 2])).toThrow(
      'cannot switch from automatic field numbering to manual',
    );
    expect(() => method('{', 'format', [])).toThrow("unmatched '{' in format");
  });
  it('exposes element views', () => {
    const elems = m('ab', 'elems');
    expect(r(elems)).toBe('"ab".elems()');
    expect(r(call('list', [elems]))).toBe('["a", "b"]');
    expect(r(call('list', [m('a😀', 'codepoint_ords')]))).toBe('[97, 128512]');
  });
});
