import { describe, expect, it } from 'vitest';
import {
  execModule,
  jsonModule,
  Secret,
  SecretReadError,
  toJS,
  type SecretAtom,
  type Value,
} from '../../../src/starlark/index.js';
import { same } from '../../support/starlark-backends.js';

/**
 * Opaque secrets in the interpreter: a `secret` composes with strings and refuses every read,
 * the same on both backends. The atoms here hold no value at all, as the host's do not: what
 * the tests check is that each read fails naming the secret, and that compositions keep their
 * parts in order.
 */
const atom = (name: string): SecretAtom => ({ secretNames: [name] });
const predeclared = () =>
  new Map<string, Value>([
    ['k', new Secret([atom('API_KEY')])],
    ['k2', new Secret([atom('OTHER')])],
    ['json', jsonModule()],
  ]);

function run(body: string) {
  return same(`def f():\n    ${body}\nr = f()\n`, { predeclared: predeclared() });
}

function value(body: string): Value {
  const m = execModule({
    file: 's.star',
    source: `def f():\n    return ${body}\nr = f()\n`,
    predeclared: predeclared(),
  });
  return m.globals.get('r') as Value;
}

/** A secret's parts with atoms as `<NAME>`. */
function parts(v: Value): string[] {
  expect(v).toBeInstanceOf(Secret);
  return (v as Secret).parts.map((p) => (typeof p === 'string' ? p : `<${p.secretNames[0]}>`));
}

describe('secret values', () => {
  const reads: Record<string, string> = {
    index: 'return k[0]',
    'negative index': 'return k[-1]',
    slice: 'return k[1:]',
    reverse: 'return k[::-1]',
    'composite slice': 'return ("Bearer " + k)[7:]',
    len: 'return len(k)',
    'for loop': 'for c in k:\n        return c',
    comprehension: 'return [c for c in k]',
    list: 'return list(k)',
    tuple: 'return tuple(k)',
    set: 'return set(k)',
    sorted: 'return sorted(k)',
    reversed: 'return reversed(k)',
    enumerate: 'return enumerate(k)',
    zip: 'return zip(k, k)',
    min: 'return min(k)',
    any: 'return any(k)',
    'per-character join': 'return "".join([c for c in k])',
    'join of the secret': 'return ",".join(k)',
    unpack: 'a, b = k\n    return a',
    'equal to a string': 'return k == "sk-live"',
    'string equal to it': 'return "sk-live" == k',
    'not equal': 'return k != "x"',
    'equal to itself': 'return k == k',
    'in a list': 'return "a" in [k]',
    'list index': 'return [k].index("a")',
    less: 'return k < "m"',
    'string less': 'return "m" < k',
    'sorted with strings': 'return sorted([k, "a"])',
    'sorted secrets': 'return sorted([k, k2])',
    max: 'return max([k, "z"])',
    hash: 'return hash(k)',
    'dict key': 'return {k: 1}',
    'set element': 'return set([k])',
    'dict lookup': 'return {"a": 1}.get(k)',
    'substring in it': 'return "a" in k',
    'it in a string': 'return k in "abcdef"',
    'it in a dict': 'return k in {"a": 1}',
    upper: 'return k.upper()',
    split: 'return k.split(":")',
    elems: 'return k.elems()',
    'method value': 'return k.startswith',
    getattr: 'return getattr(k, "upper")',
    hasattr: 'return hasattr(k, "upper")',
    startswith: 'return "sk-".startswith(k)',
    'endswith tuple': 'return "sk-".endswith((k,))',
    replace: 'return "abc".replace(k, "")',
    find: 'return "abc".find(k)',
    count: 'return "abc".count(k)',
    'split by it': 'return "abc".split(k)',
    partition: 'return "abc".partition(k)',
    strip: 'return "abc".strip(k)',
    'json.encode': 'return json.encode(k)',
    'json.encode nested': 'return json.encode({"a": ["x", k]})',
    int: 'return int(k)',
    float: 'return float(k)',
    ord: 'return ord(k)',
    chr: 'return chr(k)',
    abs: 'return abs(k)',
    bytes: 'return bytes(k)',
    range: 'return range(k)',
    'index by it': 'return "abc"[k]',
    'slice by it': 'return "abc"[k:]',
    '%d': 'return "%d" % k',
    '%x': 'return "%x" % (k,)',
    '%c': 'return "%c" % k',
    '%f': 'return "%f" % k',
    'as format string': 'return k % ("a",)',
    'format of it': 'return k.format("a")',
    repeat: 'return k * 2',
    'repeat left': 'return 2 * k',
    minus: 'return k - "a"',
    negate: 'return -k',
    'augmented *': 'x = k\n    x *= 3\n    return x',
    'list extend': 'x = []\n    x += k\n    return x',
    'shift by it': 'return [ord(c) + 1 for c in ("x" + k)]',
    'sorted tuples': 'return sorted([(k, 1), (k2, 2)])',
    'sort key': 'return sorted(["b", "a"], key = lambda x: k)',
    'dict equality': 'return {"a": k} == {"a": "x"}',
    'list equality': 'return [k] == ["x"]',
    'tuple hash': 'return hash((k,))',
    'max of two': 'return max(k, k2)',
    'list remove': 'x = ["a"]\n    x.remove(k)\n    return x',
    'str.join separator': 'return k.join(["a", "b"])',
    '%r of a slice': 'return "%r" % k[0]',
  };
  for (const [what, body] of Object.entries(reads)) {
    it(`refuses ${what}, naming the secret`, () => {
      const out = run(body);
      expect(out.error, what).toMatch(/cannot read secrets? (API_KEY|OTHER)/);
    });
  }

  it('fails with the SecretReadError class, which the host tells apart', () => {
    expect(() =>
      execModule({ file: 's.star', source: 'x = len(k)\n', predeclared: predeclared() }),
    ).toThrow(expect.objectContaining({ error: expect.any(SecretReadError) }));
  });

  it('composes with strings: +, %s, .format(), join, and keeps the parts in order', () => {
    expect(parts(value('"Bearer " + k'))).toEqual(['Bearer ', '<API_KEY>']);
    expect(parts(value('k + "/x"'))).toEqual(['<API_KEY>', '/x']);
    expect(parts(value('"a" + k + "b" + k2'))).toEqual(['a', '<API_KEY>', 'b', '<OTHER>']);
    expect(parts(value('"token %s and %d" % (k, 7)'))).toEqual(['token ', '<API_KEY>', ' and 7']);
    expect(parts(value('"%s" % k'))).toEqual(['<API_KEY>']);
    expect(parts(value('"%(a)s-%(b)s" % {"a": k, "b": "z"}'))).toEqual(['<API_KEY>', '-z']);
    expect(parts(value('"{}:{}".format("user", k)'))).toEqual(['user:', '<API_KEY>']);
    expect(parts(value('"{x}".format(x=k2)'))).toEqual(['<OTHER>']);
    expect(parts(value('"-".join(["a", k, "b", k2])'))).toEqual([
      'a-',
      '<API_KEY>',
      '-b-',
      '<OTHER>',
    ]);
    expect(parts(value('"".join([k])'))).toEqual(['<API_KEY>']);
    expect(parts(value('("x" + k) + ("y" + k)'))).toEqual(['x', '<API_KEY>', 'y', '<API_KEY>']);
    expect(parts(value('"".join(["a" for i in range(3)]) + k'))).toEqual(['aaa', '<API_KEY>']);
    const m = execModule({
      file: 's.star',
      source: 'def f():\n    x = "a"\n    x += k\n    x += "b"\n    return x\nr = f()\n',
      predeclared: predeclared(),
    });
    expect(parts(m.globals.get('r')!)).toEqual(['a', '<API_KEY>', 'b']);
  });

  it('shows a handle, never a value: type, str, repr, print, %r, {!r}, results', () => {
    const out = run(
      'print(k, "Bearer " + k)\n    return [type(k), str(k), repr(k), "%r" % k, "{!r}".format(k2), str("a" + k + k2), [k]]',
    );
    expect(out.globals).toContain(
      'r=["secret", "<secret API_KEY>", "<secret API_KEY>", "<secret API_KEY>", "<secret OTHER>", "a<secret API_KEY><secret OTHER>", [<secret API_KEY>]]',
    );
    expect(out.globals).toContain('<secret API_KEY> Bearer <secret API_KEY>\n');
    expect(toJS(value('{"k": k}'))).toEqual({ k: '<secret API_KEY>' });
  });

  it('is truthy, and compares with None only to say it is set', () => {
    expect(
      run('return [bool(k), not k, k == None, None == k, k != None, k if k else "unset"]').globals,
    ).toBe('r=[True, False, False, False, True, <secret API_KEY>]');
  });

  it('refuses + with what is not a string, without reading', () => {
    expect(run('return k + 1').error).toMatch(/unknown binary op: secret \+ int/);
    expect(run('return [1] + k').error).toMatch(/unknown binary op: list \+ secret/);
  });
});
