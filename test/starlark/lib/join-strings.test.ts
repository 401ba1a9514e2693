import { describe, expect, it } from 'vitest';
import { joinStrings } from '../../../src/starlark/lib/join-strings.js';
import { List } from '../../../src/starlark/values/index.js';
import { method } from '../values/helpers.js';

const join = (items: string[], sep: string) => joinStrings(items, sep, items.join(sep).length);

describe('joinStrings', () => {
  it('gives what the engine join gives, on every path', () => {
    const chars = [...'the quick brown fox jumps over the lazy dog'];
    const cases: Array<[string[], string]> = [
      [[], ''],
      [['only'], ', '],
      [['a', 'b', 'c'], '-'],
      [chars, ''],
      [chars, ','],
      [chars, ' :: '],
      [['', '', '', '', '', '', '', '', ''], ''],
      [['', '', '', '', '', '', '', '', ''], '|'],
      [[...'ÿþý'.repeat(5)], '\xa0'],
      // Beyond Latin-1, in an item or in the separator: the engine's join.
      [[...'abcdefghij', 'é', '€'], ''],
      [[...'abcdefghij'], '→'],
      [[...'abcdefgh', '\ud83d', '\ude00', 'z'], ''],
      // Long items: the engine's join.
      [Array.from({ length: 20 }, (_, i) => `a line of text number ${i}`), '\n'],
    ];
    for (const [items, sep] of cases) expect(join(items, sep)).toBe(items.join(sep));
  });

  it('is what str.join uses, for a long list of characters', () => {
    const text = 'Grüße aus Köln! '.repeat(500);
    expect(method('', 'join', [new List([...text])])).toBe(text);
    expect(method('.', 'join', [new List([...'abcdefghijk'])])).toBe('a.b.c.d.e.f.g.h.i.j.k');
  });
});
