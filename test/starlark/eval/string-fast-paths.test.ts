import { describe, expect, it } from 'vitest';
import { fails, run } from './helpers.js';

describe('string indexing and ord fast paths', () => {
  it('indexes strings by UTF-16 unit, negative indices from the end', () => {
    expect(run('s = "héllo"\nresult = [s[0], s[1], s[-1], s[-5]]')).toEqual(['h', 'é', 'o', 'h']);
    expect(run('s = "a😀"\nresult = [len(s[1]), len(s[2])]')).toEqual([1, 1]);
    expect(fails('s = "abc"\nresult = s[3]').message).toContain('out of range');
    expect(fails('s = "abc"\nresult = s[-4]').message).toContain('out of range');
    expect(fails('s = "abc"\nresult = s["a"]').message).toContain('string');
  });

  it('ord of one unit, a surrogate pair, and errors', () => {
    expect(run('result = [ord("a"), ord("é"), ord("😀"), ord("😀"[0])]')).toEqual([
      97, 233, 0x1f600, 0xd83d,
    ]);
    expect(fails('result = ord("ab")').message).toContain('want 1');
    expect(fails('result = ord("")').message).toContain('want 1');
    expect(fails('result = ord(1)').message).toContain('want string or bytes');
  });
});

describe('chr and augmented element assignment fast paths', () => {
  it('chr below, at and past the surrogates', () => {
    expect(run('result = [chr(0), chr(97), chr(0xd7ff), len(chr(0xd800)), chr(0x1f600)]')).toEqual([
      '\0',
      'a',
      '\ud7ff',
      1,
      '😀',
    ]);
    expect(fails('result = chr(-1)').message).toContain('out of range (<0)');
    expect(fails('result = chr(0x110000)').message).toContain('out of range');
    expect(fails('result = chr(True)').message).toContain('want int');
  });

  it('x[k] += v for ints, past 2^53, strings and lists', () => {
    const src = `
def main():
    a = [9007199254740990, "s", [1]]
    d = {"n": 1}
    inner = a[2]
    a[0] += 1
    a[0] += 1
    a[1] += "t"
    a[2] += [2]
    d["n"] += 41
    return [a[0], a[1], inner, d["n"]]
result = main()
`;
    expect(run(src)).toEqual([9007199254740992n, 'st', [1, 2], 42]);
    expect(fails('def f():\n    a = [1]\n    a[0] += "x"\nf()').message).toContain(
      'unknown binary op: int + string',
    );
    expect(fails('def f():\n    d = {}\n    d["k"] += 1\nf()').message).toContain(
      'key "k" not in dict',
    );
  });
});
