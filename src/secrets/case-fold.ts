import { FOLD_FROM, FOLD_TO } from './case-fold-table.js';

/**
 * Simple Unicode case folding, one UTF-16 code unit at a time: `Ä` and `ä`, `Σ`, `σ` and `ς`, the
 * Kelvin sign and `k` fold alike. Folds that change length (`ß` → `ss`) are not per unit; the
 * redactor covers them with the upper- and lower-cased value as patterns of their own
 * (`encodings.ts`). The table is generated (`scripts/gen-case-fold.mjs`) so that no process
 * spends tens of milliseconds deriving it from the Unicode data at start.
 */

let table: Uint16Array | null = null;

/** Code unit → its fold (itself when it has none). Built once, on first use. */
export function caseFoldTable(): Uint16Array {
  if (table !== null) return table;
  const t = new Uint16Array(65536);
  for (let c = 0; c < 65536; c++) t[c] = c;
  for (let c = 65; c <= 90; c++) t[c] = c + 32;
  const from = FOLD_FROM.split(',');
  const to = FOLD_TO.split(',');
  for (let i = 0; i < from.length; i++) t[parseInt(from[i]!, 16)] = parseInt(to[i]!, 16);
  table = t;
  return t;
}

/** Every code unit replaced by its fold. */
export function foldCase(text: string): string {
  // Most texts (secrets and their encodings) are ASCII, where the engine's own lower-casing is
  // the fold and runs natively.
  if (!/[^\x00-\x7f]/.test(text)) return text.toLowerCase();
  const t = caseFoldTable();
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const folded = t[code]!;
    if (folded !== code) {
      out += text.slice(copied, i) + String.fromCharCode(folded);
      copied = i + 1;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** The code units that fold to another one, with their folds (the automaton's class map). */
export function foldedUnits(): Array<[number, number]> {
  const t = caseFoldTable();
  const pairs: Array<[number, number]> = [];
  for (let c = 65; c <= 90; c++) pairs.push([c, c + 32]);
  for (const hex of FOLD_FROM.split(',')) {
    const c = parseInt(hex, 16);
    pairs.push([c, t[c]!]);
  }
  return pairs;
}
