/** "Did you mean" hints, matching starlark-go: case and underscores are ignored, up to 50% edits. */

function fold(s: string): string {
  return s.replace(/_/g, '').toLowerCase();
}

function levenshtein(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) >= max) return max;
  let prev = new Array<number>(b.length + 1);
  let cur = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/** The candidate closest to `x`, or undefined if none is close enough. */
export function nearest(x: string, candidates: Iterable<string>): string | undefined {
  const fx = fold(x);
  let best: string | undefined;
  let bestD = Math.floor((fx.length + 1) / 2);
  for (const c of candidates) {
    const d = levenshtein(fx, fold(c), bestD);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best;
}

/** ` (did you mean .y?)` or the empty string. */
export function attrHint(x: string, candidates: Iterable<string>): string {
  const n = nearest(x, candidates);
  return n === undefined ? '' : ` (did you mean .${n}?)`;
}
