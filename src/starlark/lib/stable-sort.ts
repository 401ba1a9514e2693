/**
 * Stable sort shaped like Go's sort.Stable (insertion sort over blocks of 20, then merges),
 * so that when a comparison fails, the error reported matches starlark-go's: sorting carries
 * on and the last failure wins.
 */

const BLOCK = 20;

export function stableSort<T>(a: T[], less: (x: T, y: T) => boolean): void {
  let err: unknown;
  let failed = false;
  const lt = (x: T, y: T): boolean => {
    try {
      return less(x, y);
    } catch (e) {
      err = e;
      failed = true;
      return false;
    }
  };
  const n = a.length;
  for (let lo = 0; lo < n; lo += BLOCK) insertionSort(a, lo, Math.min(lo + BLOCK, n), lt);
  const buf: T[] = new Array<T>(n);
  for (let width = BLOCK; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      merge(a, buf, lo, mid, hi, lt);
    }
  }
  if (failed) throw err;
}

function insertionSort<T>(a: T[], lo: number, hi: number, lt: (x: T, y: T) => boolean): void {
  for (let i = lo + 1; i < hi; i++) {
    for (let j = i; j > lo && lt(a[j]!, a[j - 1]!); j--) {
      const t = a[j]!;
      a[j] = a[j - 1]!;
      a[j - 1] = t;
    }
  }
}

function merge<T>(
  a: T[],
  buf: T[],
  lo: number,
  mid: number,
  hi: number,
  lt: (x: T, y: T) => boolean,
): void {
  if (mid >= hi) return;
  let i = lo;
  let j = mid;
  let k = lo;
  // Take from the right run only when strictly less, which keeps equal elements in order.
  while (i < mid && j < hi) buf[k++] = lt(a[j]!, a[i]!) ? a[j++]! : a[i++]!;
  while (i < mid) buf[k++] = a[i++]!;
  while (j < hi) buf[k++] = a[j++]!;
  for (let m = lo; m < hi; m++) a[m] = buf[m]!;
}
