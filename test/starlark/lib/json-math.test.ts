import { describe, expect, it } from 'vitest';
import { jsonModule, mathModule } from '../../../src/starlark/lib/index.js';
import { getAttr } from '../../../src/starlark/values/ops.js';
import { List, repr, SFloat, toStarlark, type Value } from '../../../src/starlark/values/index.js';
import { thread } from '../values/helpers.js';

const json = jsonModule();
const math = mathModule();
const j = (name: string, args: Value[], kwargs: Array<[string, Value]> | null = null) =>
  thread.call(getAttr(json, name, thread), args, kwargs);
const mth = (name: string, ...args: Value[]) =>
  thread.call(getAttr(math, name, thread), args, null);

describe('json', () => {
  it('encodes with sorted keys and exact numbers', () => {
    expect(j('encode', [toStarlark({ y: [1, 2.5, null], x: true })])).toBe(
      '{"x":true,"y":[1,2.5,null]}',
    );
    expect(j('encode', [2n ** 80n])).toBe('1208925819614629174706176');
    expect(j('encode', [new SFloat(1)])).toBe('1.0');
    expect(() => j('encode', [new SFloat(NaN)])).toThrow(
      'json.encode: cannot encode non-finite float nan',
    );
    const l = new List([]);
    l.items.push(l);
    expect(() => j('encode', [l])).toThrow('json.encode: at list index 0: cycle in JSON structure');
  });
  it('decodes with starlark-go errors', () => {
    expect(repr(j('decode', ['{"a": [1, 2.0, "x\\u0041"], "b": null}']))).toBe(
      '{"a": [1, 2.0, "xA"], "b": None}',
    );
    expect(j('decode', ['123456789012345678901234567890'])).toBe(123456789012345678901234567890n);
    expect(() => j('decode', ['truefalse'])).toThrow(
      "json.decode: at offset 4, unexpected character 'f' after value",
    );
    expect(() => j('decode', ['[1, 2}'])).toThrow("got '}', want ',' or ']'");
    expect(() => j('decode', ['01'])).toThrow('invalid number: 01');
    expect(j('decode', ['{', 'dflt'])).toBe('dflt');
  });
  it('indents', () => {
    expect(j('indent', ['{"a":[1,2],"b":{}}'], [['indent', '  ']])).toBe(
      '{\n  "a": [\n    1,\n    2\n  ],\n  "b": {}\n}',
    );
    expect(j('encode_indent', [toStarlark([1])], [['prefix', '>']])).toBe('[\n>\t1\n>]');
  });
});

describe('math', () => {
  it('computes floats and rounds to ints', () => {
    expect(mth('ceil', new SFloat(1.2))).toBe(2);
    expect(mth('floor', new SFloat(-1.2))).toBe(-2);
    expect(mth('round', new SFloat(-0.5))).toEqual(new SFloat(-1));
    expect(mth('remainder', 3, 5)).toEqual(new SFloat(-2));
    expect(mth('gamma', 5)).toEqual(new SFloat(24));
    expect(mth('log', 8, 2)).toEqual(new SFloat(3));
    expect(() => mth('log', 2, 1)).toThrow('division by zero');
    expect(() => mth('sqrt', 'x')).toThrow('got string, want float or int');
  });
});
