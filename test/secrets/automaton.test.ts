import { describe, expect, it } from 'vitest';
import { buildAutomaton, type Pattern } from '../../src/secrets/automaton.js';
import { SpanList } from '../../src/secrets/spans.js';

/** Deterministic pseudo-random numbers, so a failure can be replayed. */
function generator(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

function randomText(random: () => number, alphabet: string, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)];
  return text;
}

/** The reference: every occurrence of every pattern, merged when overlapping or touching. */
function naiveSpans(text: string, patterns: Pattern[]): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  for (const { text: p } of patterns) {
    for (let at = text.indexOf(p); at !== -1; at = text.indexOf(p, at + 1))
      found.push([at, at + p.length]);
  }
  found.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: Array<[number, number]> = [];
  for (const [start, end] of found) {
    const last = merged.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

function automatonSpans(
  text: string,
  patterns: Pattern[],
  denseBudget?: number,
): Array<[number, number]> {
  const automaton = buildAutomaton(
    patterns,
    denseBudget === undefined ? {} : { denseBudget, denseDepth: 64 },
  );
  const spans = new SpanList();
  automaton.scan(text, 0, 0, (s, e, t) => spans.add(s, e, t));
  return spans.starts.map((s, i) => [s, spans.ends[i] as number]);
}

describe('automaton', () => {
  // Small alphabets make overlaps, shared prefixes and failure chains common.
  for (const [label, budget] of [
    ['dense rows only', undefined],
    ['mostly sparse states', 16],
    ['one dense state', 1],
  ] as const) {
    it(`finds every occurrence like the naive reference (${label})`, () => {
      const random = generator(label.length * 7919);
      for (let round = 0; round < 300; round++) {
        const alphabet = 'abcd'.slice(0, 2 + (round % 3));
        const patterns: Pattern[] = Array.from(
          { length: 1 + Math.floor(random() * 8) },
          (_, tag) => ({
            text: randomText(random, alphabet, 1 + Math.floor(random() * 6)),
            tag,
          }),
        );
        const text = randomText(random, `${alphabet}xy`, Math.floor(random() * 120));
        expect(
          automatonSpans(text, patterns, budget),
          `${JSON.stringify(patterns)} in ${text}`,
        ).toEqual(naiveSpans(text, patterns));
      }
    });
  }

  it('resumes from a state so that chunked input matches whole input', () => {
    const patterns: Pattern[] = [
      { text: 'abcab', tag: 0 },
      { text: 'bca', tag: 1 },
      { text: 'cabcabx', tag: 2 },
    ];
    const automaton = buildAutomaton(patterns);
    const text = 'xxabcabcabxab';
    const whole: number[][] = [];
    automaton.scan(text, 0, 0, (s, e, t) => whole.push([s, e, t]));
    for (let split = 0; split <= text.length; split++) {
      const parts: number[][] = [];
      const state = automaton.scan(text.slice(0, split), 0, 0, (s, e, t) => parts.push([s, e, t]));
      automaton.scan(text.slice(split), state, split, (s, e, t) => parts.push([s, e, t]));
      expect(parts).toEqual(whole);
    }
  });

  it('reports how much of the tail may still become a match', () => {
    const automaton = buildAutomaton([{ text: 'secret-value', tag: 0 }]);
    expect(automaton.depth(automaton.scan('plain text', 0, 0, () => {}))).toBe(0);
    expect(automaton.depth(automaton.scan('text secr', 0, 0, () => {}))).toBe(4);
    expect(automaton.maxPatternLength).toBe(12);
  });

  it('handles non-ASCII and astral characters as code units', () => {
    const patterns: Pattern[] = [{ text: 'clé-😀-ünï', tag: 0 }];
    expect(automatonSpans('a clé-😀-ünï b', patterns)).toEqual([[2, 2 + 'clé-😀-ünï'.length]]);
  });
});
