import { describe, expect, it } from 'vitest';
import { fails, run } from '../eval/helpers.js';

type Cell = number | string;

/** Lexicographic order of int/str tuples, as Starlark defines it. */
function lex(a: Cell[], b: Cell[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return a.length - b.length;
}

function lit(c: Cell): string {
  return typeof c === 'number' ? String(c) : JSON.stringify(c);
}

function tupleLit(t: Cell[]): string {
  return '(' + t.map(lit).join(', ') + (t.length === 1 ? ',)' : ')');
}

/** A small deterministic PRNG, so failures reproduce. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
}

/** `sorted` of the indices of `items`, keyed by them, is their stable lexicographic order, both ways. */
function expectLexOrder(items: Cell[][]): void {
  const src = '[' + items.map(tupleLit).join(', ') + ']';
  for (const reverse of [false, true]) {
    const idx = items.map((_, i) => i);
    idx.sort((i, j) => (reverse ? lex(items[j]!, items[i]!) : lex(items[i]!, items[j]!)));
    const flag = reverse ? 'True' : 'False';
    expect(
      run(
        `items = ${src}\nresult = sorted(range(len(items)), key = lambda i: items[i], reverse = ${flag})`,
      ),
    ).toEqual(idx);
  }
}

describe('sorted with tuple keys (column-wise fast path)', () => {
  it('matches a stable lexicographic sort, both directions, with ragged lengths', () => {
    const rand = rng(7);
    const big = 2 ** 53 - 1;
    const pools: Cell[][] = [
      [0, -1, 1, 5, -5, big, -big, 2 ** 40, -(2 ** 40)],
      ['', 'a', 'b', 'ab', 'é', '😀', '\uffff', 'A'],
    ];
    for (let round = 0; round < 20; round++) {
      const width = 1 + Math.floor(rand() * 3);
      const kinds = Array.from({ length: width }, () => Math.floor(rand() * 2));
      const items: Cell[][] = [];
      for (let i = 0; i < 60; i++) {
        const len = round % 2 === 0 ? width : Math.floor(rand() * (width + 1));
        const pool = (c: number) => pools[kinds[c]!]!;
        items.push(
          Array.from({ length: len }, (_, c) => pool(c)[Math.floor(rand() * pool(c).length)]!),
        );
      }
      const src = '[' + items.map(tupleLit).join(', ') + ']';
      for (const reverse of [false, true]) {
        const idx = items.map((_, i) => i);
        idx.sort((i, j) => (reverse ? lex(items[j]!, items[i]!) : lex(items[i]!, items[j]!)));
        const want = idx;
        const got = run(
          `items = ${src}\n` +
            `order = sorted(range(len(items)), key = lambda i: items[i], reverse = ${reverse ? 'True' : 'False'})\n` +
            'result = order',
        );
        expect(got).toEqual(want);
        const asList = run(
          `result = sorted([list(t) for t in ${src}], reverse = ${reverse ? 'True' : 'False'})`,
        );
        expect(asList).toEqual(want.map((i) => items[i]!));
      }
    }
  });

  it('splits many wide columns over several stable passes', () => {
    const rand = rng(11);
    const items: Cell[][] = [];
    for (let i = 0; i < 300; i++)
      items.push(Array.from({ length: 5 }, (_, c) => Math.floor(rand() * (c === 2 ? 3 : 5000))));
    expectLexOrder(items);
  });

  it('breaks ties of the leading columns by a last string column, in short and long runs', () => {
    const rand = rng(23);
    const names = ['', 'a', 'b', 'ab', 'é', '😀', '\uffff', 'A', 'zz', 'za'];
    // Leading keys drawn from few or many values: runs of one, of a few, of dozens (sorted
    // natively), and so few keys that the runs are long and the last column is ranked instead.
    for (const leading of [400, 40, 3, 1]) {
      const items: Cell[][] = [];
      for (let i = 0; i < 500; i++) {
        const lead = Math.floor(rand() * leading);
        const item: Cell[] = [lead % 7 === 0 ? 'x' + lead : 'y', lead];
        // Some keys stop before the last column: they sort first among their equals.
        if (rand() < 0.9) item.push(names[Math.floor(rand() * names.length)]! + (i % 37));
        items.push(item);
      }
      expectLexOrder(items);
    }
  });

  it('orders ints beyond 2^32 apart and beyond 2^53 (bigint columns take the general sort)', () => {
    expect(
      run('result = sorted([(9007199254740991, 1), (-9007199254740991, 2), (0, 3), (1, 0)])'),
    ).toEqual([
      [-9007199254740991, 2],
      [0, 3],
      [1, 0],
      [9007199254740991, 1],
    ]);
    expect(run('result = sorted([(1 << 60, "b"), (1, "a"), (-(1 << 60), "c")])')).toEqual([
      [-(2n ** 60n), 'c'],
      [1, 'a'],
      [2n ** 60n, 'b'],
    ]);
  });

  it('keeps the general sort, and its error, when a column mixes types', () => {
    expect(fails('result = sorted([(1, 2), (1, "a"), (0, 1)])').message).toContain(
      'string < int not implemented',
    );
    expect(fails('result = sorted([(1, 2), ("a", 2)])').message).toContain('not implemented');
    // Mixed columns that never need comparing still sort, as before.
    expect(run('result = sorted([(1, 2), (2, "a"), (0, None)])')).toEqual([
      [0, null],
      [1, 2],
      [2, 'a'],
    ]);
    // Tuples against lists cannot be ordered.
    expect(fails('result = sorted([(1,), [1]])').message).toContain('not implemented');
  });

  it('sorts floats, bools and nested tuples through the general path', () => {
    expect(run('result = sorted([(1.5, 1), (0.5, 2), (1, 0)])')).toEqual([
      [0.5, 2],
      [1, 0],
      [1.5, 1],
    ]);
    expect(run('result = sorted([((2, 1), 0), ((1, 9), 1)])')).toEqual([
      [[1, 9], 1],
      [[2, 1], 0],
    ]);
    expect(run('result = sorted([(True, 1), (False, 2)])')).toEqual([
      [false, 2],
      [true, 1],
    ]);
  });
});
