import { List, Tuple, type Value } from '../values/index.js';

/**
 * Sorting by tuple (or list) keys whose columns are each all safe ints or all strings. Such
 * keys cannot fail to compare, so they need not take the Go-shaped sort (whose only reason to
 * exist is reporting a failing comparison as starlark-go does). Each column is mapped to an
 * order-preserving rank below 2^32; then an LSD radix order, least significant column first,
 * runs one native typed-array sort per group of columns whose ranks pack together into 32 bits,
 * with the element's position packed below to keep each pass stable. Lexicographic order falls
 * out: a tuple too short for a column ranks below every value there, as a prefix sorts first.
 */

const INDEX_BITS = 2 ** 21;

/**
 * Sorts non-negative finite float64s. Their bit patterns order as unsigned 64-bit ints do, and
 * V8 sorts a BigUint64Array natively about twice as fast as a Float64Array (whose sort must
 * order NaN and -0), most of all on a cold start.
 */
export function sortNonNegative(a: Float64Array): void {
  new BigUint64Array(a.buffer, a.byteOffset, a.length).sort();
}
const RANK_LIMIT = 2 ** 32;

interface Column {
  ranks: Float64Array;
  /** One more than the largest rank. */
  range: number;
}

/** Sorts `order` (the identity) by `keys`; returns false, having changed nothing, if the keys do not fit. */
export function tupleKeySort(order: number[], keys: Value[], reverse: boolean): boolean {
  const n = keys.length;
  if (n < 2 || n >= INDEX_BITS) return false;
  const first = keys[0];
  const cls = first instanceof Tuple ? Tuple : first instanceof List ? List : undefined;
  if (cls === undefined) return false;
  const rows: Array<readonly Value[]> = [];
  let width = 0;
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    // Exact class: a host subclass might order itself differently.
    if (typeof k !== 'object' || k.constructor !== cls) return false;
    const items = (k as Tuple | List).items;
    rows.push(items);
    if (items.length > width) width = items.length;
  }
  const columns: Column[] = [];
  for (let c = 0; c < width; c++) {
    const col = columnRanks(rows, c);
    if (col === undefined) return false;
    columns.push(col);
  }
  let cur = order;
  const packed = new Float64Array(n);
  let acc = new Float64Array(n);
  let accRange = 1;
  for (let c = width - 1; c >= 0; c--) {
    const { ranks, range } = columns[c]!;
    if (accRange * range > RANK_LIMIT) {
      cur = radixPass(cur, acc, accRange, packed, reverse);
      acc = new Float64Array(n);
      accRange = 1;
    }
    for (let i = 0; i < n; i++) acc[i] = ranks[i]! * accRange + acc[i]!;
    accRange *= range;
  }
  cur = radixPass(cur, acc, accRange, packed, reverse);
  for (let i = 0; i < n; i++) order[i] = cur[i]!;
  return true;
}

/** One stable pass: reorders `cur` (element indices) by `key[element]`. */
function radixPass(
  cur: number[],
  key: Float64Array,
  range: number,
  packed: Float64Array,
  reverse: boolean,
): number[] {
  const n = cur.length;
  for (let p = 0; p < n; p++) {
    const k = key[cur[p]!]!;
    packed[p] = (reverse ? range - 1 - k : k) * INDEX_BITS + p;
  }
  sortNonNegative(packed);
  const next: number[] = new Array<number>(n);
  for (let q = 0; q < n; q++) next[q] = cur[(packed[q]! % INDEX_BITS) | 0]!;
  return next;
}

/** Ranks of column `c` (0 where a row is too short), or undefined if the column is not uniform. */
function columnRanks(rows: Array<readonly Value[]>, c: number): Column | undefined {
  const n = rows.length;
  let kind: 'number' | 'string' | undefined;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const row = rows[i]!;
    if (row.length <= c) continue;
    const v = row[c];
    const t = typeof v;
    if (kind === undefined) {
      if (t !== 'number' && t !== 'string') return undefined;
      kind = t;
    } else if (t !== kind) return undefined;
    if (t === 'number') {
      if ((v as number) < min) min = v as number;
      if ((v as number) > max) max = v as number;
    }
  }
  const ranks = new Float64Array(n);
  if (kind === 'number' && max - min + 2 <= RANK_LIMIT) {
    for (let i = 0; i < n; i++) {
      const row = rows[i]!;
      if (row.length > c) ranks[i] = (row[c] as number) - min + 1;
    }
    return { ranks, range: max - min + 2 };
  }
  // Wide ints and strings: dense ranks of the distinct values (fewer than 2^21 of them).
  const present: Array<number | string> = [];
  for (let i = 0; i < n; i++) {
    const row = rows[i]!;
    if (row.length > c) present.push(row[c] as number | string);
  }
  // The default sort compares strings by UTF-16 code units, as Starlark's `<` does.
  if (kind === 'number') present.sort((a, b) => (a as number) - (b as number));
  else present.sort();
  const rankOf = new Map<number | string, number>();
  let r = 0;
  for (let i = 0; i < present.length; i++) {
    const v = present[i]!;
    if (i === 0 || v !== present[i - 1]) rankOf.set(v, ++r);
  }
  for (let i = 0; i < n; i++) {
    const row = rows[i]!;
    if (row.length > c) ranks[i] = rankOf.get(row[c] as number | string)!;
  }
  return { ranks, range: r + 1 };
}
