import { List, Tuple, type Value } from '../values/index.js';

/**
 * Sorting by tuple (or list) keys whose columns are each all safe ints or all strings. Such
 * keys cannot fail to compare, so they need not take the Go-shaped sort (whose only reason to
 * exist is reporting a failing comparison as starlark-go does). Each column is mapped to an
 * order-preserving rank; then an LSD radix order, least significant column first, runs one
 * native sort of 64-bit words per group of columns whose ranks pack together below 2^43,
 * with the element's position in the low 21 bits to keep each pass stable. Lexicographic
 * order falls out: a tuple too short for a column ranks below every value there, as a prefix
 * sorts first. A last column of strings that only breaks ties among short runs of equal leading
 * keys is compared within those runs instead of ranked (`leadThenLast`).
 */

const INDEX_BITS = 2 ** 21;
const KEY_LIMIT = 2 ** 43;
const HI_SHIFT = 2 ** 11;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

const UNSEEN = 0;
const INT = 1;
const STR = 2;

/**
 * Sorts non-negative float64s below 2^53. Their bit patterns order as unsigned 64-bit ints
 * do, and V8 sorts a BigUint64Array natively about twice as fast as a Float64Array (whose
 * sort must order NaN and -0), most of all on a cold start.
 */
export function sortNonNegative(a: Float64Array): void {
  new BigUint64Array(a.buffer, a.byteOffset, a.length).sort();
}

/** Sorts `order` (the identity) by `keys`; returns false, having changed nothing, if the keys do not fit. */
export function tupleKeySort(order: number[], keys: Value[], reverse: boolean): boolean {
  const n = keys.length;
  if (n < 2 || n >= INDEX_BITS || !LITTLE_ENDIAN) return false;
  const first = keys[0];
  const cls = first instanceof Tuple ? Tuple : first instanceof List ? List : undefined;
  if (cls === undefined) return false;
  // One sweep classifies every column and finds the int columns' bounds.
  const kinds: number[] = [];
  const mins: number[] = [];
  const maxs: number[] = [];
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    // Exact class: a host subclass might order itself differently.
    if (typeof k !== 'object' || k.constructor !== cls) return false;
    const items = (k as Tuple | List).items;
    for (let c = 0; c < items.length; c++) {
      if (c === kinds.length) {
        kinds.push(UNSEEN);
        mins.push(Infinity);
        maxs.push(-Infinity);
      }
      const v = items[c];
      if (typeof v === 'number') {
        if (kinds[c] === STR) return false;
        kinds[c] = INT;
        if (v < mins[c]!) mins[c] = v;
        if (v > maxs[c]!) maxs[c] = v;
      } else if (typeof v === 'string') {
        if (kinds[c] === INT) return false;
        kinds[c] = STR;
      } else return false;
    }
  }
  const last = kinds.length - 1;
  if (last > 0 && kinds[last] === STR && leadThenLast(order, keys, kinds, mins, maxs, reverse))
    return true;
  let cur = order;
  let acc = new Float64Array(n);
  let accRange = 1;
  for (let c = last; c >= 0; c--) {
    const { dense, range } = columnRanks(keys, c, kinds[c]!, mins[c]!, maxs[c]!);
    if (accRange * range > KEY_LIMIT) {
      cur = radixPass(cur, acc, accRange, reverse);
      acc = new Float64Array(n);
      accRange = 1;
    }
    addColumn(acc, accRange, keys, c, mins[c]!, dense);
    accRange *= range;
  }
  cur = radixPass(cur, acc, accRange, reverse);
  for (let i = 0; i < n; i++) order[i] = cur[i]!;
  return true;
}

/**
 * How column `c` ranks: through `denseRanks` for strings and for ints too far apart to offset,
 * else as its offset from `min` (0 is left for keys too short to have the column); `range` is
 * one more than the highest rank.
 */
function columnRanks(
  keys: Value[],
  c: number,
  kind: number,
  min: number,
  max: number,
): { dense: Map<number | string, number> | undefined; range: number } {
  const span = max - min;
  const dense = kind === STR || span + 2 > KEY_LIMIT ? denseRanks(keys, c) : undefined;
  return { dense, range: dense === undefined ? span + 2 : dense.size + 1 };
}

/** The longest runs of equal leading keys `leadThenLast` sorts by their last column. */
const SHORT_RUNS = 64;
/** Runs sorted in place by insertion; longer ones take the native sort. */
const INSERTION_RUN = 16;

/**
 * Keys such as (city, -age, name), whose last column is a string that only breaks ties: one
 * radix pass orders the leading columns, then each run of equal leading keys is sorted by the
 * last column with comparisons. Ranking that column as the others are would sort every one of its
 * values and put each in a map; the runs are short. False, having changed nothing, when the
 * leading columns need more than one pass, or leave runs longer than SHORT_RUNS on average (a
 * few distinct values, whose ranks are cheap).
 */
function leadThenLast(
  order: number[],
  keys: Value[],
  kinds: number[],
  mins: number[],
  maxs: number[],
  reverse: boolean,
): boolean {
  const n = keys.length;
  const last = kinds.length - 1;
  const acc = new Float64Array(n);
  let accRange = 1;
  for (let c = last - 1; c >= 0; c--) {
    const { dense, range } = columnRanks(keys, c, kinds[c]!, mins[c]!, maxs[c]!);
    if (accRange * range > KEY_LIMIT) return false;
    addColumn(acc, accRange, keys, c, mins[c]!, dense);
    accRange *= range;
  }
  // Fewer possible leading keys than that: the runs are long whatever the values.
  if (accRange * SHORT_RUNS < n) return false;
  const cur = radixPass(order, acc, accRange, reverse);
  let runs = 1;
  for (let p = 1; p < n; p++) if (acc[cur[p]!] !== acc[cur[p - 1]!]) runs++;
  if (runs * SHORT_RUNS < n) return false;
  // A key too short for the last column sorts before every value there, as a prefix does.
  const tail = keys.map((k) => (k as Tuple).items[last] as string | undefined);
  const before = (a: number, b: number): boolean => {
    const x = tail[reverse ? b : a];
    const y = tail[reverse ? a : b];
    return y !== undefined && (x === undefined || x < y);
  };
  const compare = (a: number, b: number) => (before(a, b) ? -1 : before(b, a) ? 1 : 0);
  for (let start = 0; start < n;) {
    let end = start + 1;
    while (end < n && acc[cur[end]!] === acc[cur[start]!]) end++;
    if (end - start > INSERTION_RUN) {
      // A long run among short ones: the native sort, stable as well.
      const run = cur.slice(start, end).sort(compare);
      for (let p = start; p < end; p++) cur[p] = run[p - start]!;
      start = end;
      continue;
    }
    // Insertion sort, stable: an element moves only past ones it sorts strictly before.
    for (let p = start + 1; p < end; p++) {
      const e = cur[p]!;
      let q = p;
      while (q > start && before(e, cur[q - 1]!)) {
        cur[q] = cur[q - 1]!;
        q--;
      }
      cur[q] = e;
    }
    start = end;
  }
  for (let i = 0; i < n; i++) order[i] = cur[i]!;
  return true;
}

/** acc[i] += rank of column `c` of key i (0 where the key is too short) times `scale`. */
function addColumn(
  acc: Float64Array,
  scale: number,
  keys: Value[],
  c: number,
  min: number,
  dense: Map<number | string, number> | undefined,
): void {
  const n = acc.length;
  for (let i = 0; i < n; i++) {
    const items = (keys[i] as Tuple).items;
    if (items.length <= c) continue;
    const v = items[c] as number | string;
    const rank = dense === undefined ? (v as number) - min + 1 : dense.get(v)!;
    acc[i] = rank * scale + acc[i]!;
  }
}

/** Ranks from 1 of column `c`'s distinct values: strings, and ints too far apart to offset. */
function denseRanks(keys: Value[], c: number): Map<number | string, number> {
  // Only the distinct values are sorted: a column such as a city or a category repeats a few
  // values over many keys, and sorting every occurrence cost a sort of all the keys per column.
  const rankOf = new Map<number | string, number>();
  for (let i = 0; i < keys.length; i++) {
    const items = (keys[i] as Tuple).items;
    if (items.length > c) rankOf.set(items[c] as number | string, 0);
  }
  const distinct = [...rankOf.keys()];
  // The default sort compares strings by UTF-16 code units, as Starlark's `<` does.
  if (typeof distinct[0] === 'number') distinct.sort((a, b) => (a as number) - (b as number));
  else distinct.sort();
  for (let i = 0; i < distinct.length; i++) rankOf.set(distinct[i]!, i + 1);
  return rankOf;
}

/**
 * One stable pass: reorders `cur` (element indices) by `key[element]` (below 2^43), sorting
 * words of key * 2^21 + position, written as two 32-bit halves to avoid making bigints.
 */
function radixPass(cur: number[], key: Float64Array, range: number, reverse: boolean): number[] {
  const n = cur.length;
  const words = new BigUint64Array(n);
  const halves = new Uint32Array(words.buffer);
  for (let p = 0; p < n; p++) {
    const k = reverse ? range - 1 - key[cur[p]!]! : key[cur[p]!]!;
    const hi = Math.floor(k / HI_SHIFT);
    halves[2 * p] = (k - hi * HI_SHIFT) * INDEX_BITS + p;
    halves[2 * p + 1] = hi;
  }
  words.sort();
  const next = new Array<number>(n);
  for (let q = 0; q < n; q++) next[q] = cur[halves[2 * q]! & (INDEX_BITS - 1)]!;
  return next;
}
