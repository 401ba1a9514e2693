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
