import { describe, expect, it } from 'vitest';
import { render, SpanList } from '../../src/secrets/spans.js';

const spans = (...ranges: Array<[number, number, number]>) => {
  const list = new SpanList();
  for (const [start, end, tag] of ranges) list.add(start, end, tag);
  return list;
};
const view = (list: SpanList) => list.starts.map((s, i) => [s, list.ends[i], list.tags[i]]);
const marker = (tag: number) => `<${tag}>`;

describe('SpanList', () => {
  it('keeps separate ranges apart', () => {
    expect(view(spans([0, 3, 1], [5, 8, 2]))).toEqual([
      [0, 3, 1],
      [5, 8, 2],
    ]);
  });

  it('merges a range that overlaps or touches the last one', () => {
    expect(view(spans([0, 5, 1], [3, 9, 2]))).toEqual([[0, 9, 1]]);
    expect(view(spans([0, 5, 1], [5, 9, 2]))).toEqual([[0, 9, 1]]);
  });

  it('names the leftmost match of a merged run', () => {
    expect(view(spans([2, 8, 1], [4, 9, 2]))).toEqual([[2, 9, 1]]);
    expect(view(spans([4, 8, 1], [2, 9, 2]))).toEqual([[2, 9, 2]]);
    // Same start: the longer match, reported later, names it.
    expect(view(spans([2, 8, 1], [2, 9, 2]))).toEqual([[2, 9, 2]]);
  });

  it('lets one long range swallow several earlier ones', () => {
    expect(view(spans([1, 2, 1], [4, 5, 2], [7, 8, 3], [3, 10, 4]))).toEqual([
      [1, 2, 1],
      [3, 10, 4],
    ]);
    expect(view(spans([1, 2, 1], [4, 5, 2], [0, 9, 3]))).toEqual([[0, 9, 3]]);
  });

  it('drops spans from the front', () => {
    const list = spans([0, 1, 1], [3, 4, 2], [6, 7, 3]);
    list.shift(2);
    expect(view(list)).toEqual([[6, 7, 3]]);
    expect(list.length).toBe(1);
    list.shift(5);
    expect(list.length).toBe(0);
  });
});

describe('render', () => {
  it('replaces each span by its marker', () => {
    const list = spans([0, 3, 1], [8, 11, 2]);
    expect(render('abc and def!', 0, list, 2, marker)).toBe('<1> and <2>!');
  });

  it('replaces only the first count spans', () => {
    const list = spans([0, 3, 1], [8, 11, 2]);
    expect(render('abc and def!', 0, list, 1, marker)).toBe('<1> and def!');
    expect(render('abc and def!', 0, list, 0, marker)).toBe('abc and def!');
  });

  it('reads span positions relative to where the text starts', () => {
    const list = spans([103, 106, 7]);
    expect(render('xx secret-ish', 100, list, 1, marker)).toBe('xx <7>ret-ish');
  });

  it('handles a span covering the whole text', () => {
    expect(render('secret', 0, spans([0, 6, 0]), 1, marker)).toBe('<0>');
  });
});
