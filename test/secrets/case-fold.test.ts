import { describe, expect, it } from 'vitest';
import { caseFoldTable, foldCase } from '../../src/secrets/case-fold.js';
// @ts-expect-error: a build script, plain JavaScript without types
import { foldUnit } from '../../scripts/gen-case-fold.mjs';

describe('case folding', () => {
  it('matches the case mappings of the Node that runs it (regenerate the table when not)', () => {
    const table = caseFoldTable();
    const fold = foldUnit as (code: number) => number;
    const stale: string[] = [];
    for (let code = 0; code < 65536; code++) {
      if (table[code] !== fold(code)) stale.push(code.toString(16));
    }
    expect(stale, 'run node scripts/gen-case-fold.mjs').toEqual([]);
  });

  it('folds one code unit at a time, whatever the alphabet', () => {
    expect(foldCase('PÄSSWÖRT')).toBe('pässwört');
    expect(foldCase('ΣΟΦΊΑ ς')).toBe('σοφία σ');
    expect(foldCase('\u212a')).toBe('k'); // Kelvin sign
    expect(foldCase('ß')).toBe('ß'); // its fold is two units: the redactor adds `SS` forms itself
    const plain = 'already folded 123';
    expect(foldCase(plain)).toBe(plain);
  });
});
