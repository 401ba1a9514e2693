import { describe, expect, it } from 'vitest';
import { compileModule } from '../../../src/starlark/index.js';
import { createProgramCache } from '../../../src/workers/script-runs/program-cache.js';

function counter() {
  const compiled: string[] = [];
  const compile = (source: string) => () => {
    compiled.push(source);
    return compileModule({ file: 't.star', source, predeclared: [] });
  };
  return { compiled, compile };
}

describe('program cache', () => {
  it('compiles a hash once and hands the same program back', () => {
    const cache = createProgramCache();
    const { compiled, compile } = counter();
    const a = cache.get('h1', 'x = 1', compile('x = 1'));
    expect(cache.get('h1', 'x = 1', compile('x = 1'))).toBe(a);
    expect(compiled).toEqual(['x = 1']);
  });

  it('never hands back other text than asked for under the same hash', () => {
    const cache = createProgramCache();
    const { compiled, compile } = counter();
    cache.get('h', 'x = 1', compile('x = 1'));
    const b = cache.get('h', 'x = 2', compile('x = 2'));
    expect(b.source).toBe('x = 2');
    expect(cache.get('h', 'x = 2', compile('x = 2'))).toBe(b);
    expect(compiled).toEqual(['x = 1', 'x = 2']);
    expect(cache.size).toBe(1);
  });

  it('drops the least recently used program past its entry limit', () => {
    const cache = createProgramCache({ entries: 2, sourceBytes: 1 << 20 });
    const { compiled, compile } = counter();
    cache.get('a', 'a = 1', compile('a = 1'));
    cache.get('b', 'b = 1', compile('b = 1'));
    cache.get('a', 'a = 1', compile('a = 1')); // a is now the most recent
    cache.get('c', 'c = 1', compile('c = 1')); // drops b
    cache.get('a', 'a = 1', compile('a = 1'));
    cache.get('b', 'b = 1', compile('b = 1'));
    expect(compiled).toEqual(['a = 1', 'b = 1', 'c = 1', 'b = 1']);
    expect(cache.size).toBe(2);
  });

  it('keeps its source bytes bounded and does not keep a program larger than the bound', () => {
    const big = `x = "${'y'.repeat(600)}"`;
    const cache = createProgramCache({ entries: 10, sourceBytes: 2000 });
    const { compiled, compile } = counter();
    cache.get('1', big, compile(big));
    cache.get('2', big, compile(big));
    expect(cache.size).toBe(1); // two would be ~2,420 bytes of UTF-16
    const huge = `x = "${'z'.repeat(1200)}"`;
    cache.get('3', huge, compile(huge));
    cache.get('3', huge, compile(huge));
    expect(compiled.filter((s) => s === huge)).toHaveLength(2);
    expect(cache.size).toBe(1);
  });
});
