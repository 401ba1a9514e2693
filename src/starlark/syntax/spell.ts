/** Folds case and drops underscores, so hints ignore those differences. */
function fold(s: string): string {
  return s.replace(/_/g, '').toLowerCase();
}

function levenshtein(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) >= max) return max;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = cur;
  }
  return prev[b.length] ?? max;
}

/** The candidate nearest to `x`, if it is within 50% edits; used for "did you mean" hints. */
export function nearest(x: string, candidates: Iterable<string>): string | null {
  const fx = fold(x);
  let best: string | null = null;
  let bestD = Math.floor((fx.length + 1) / 2);
  for (const c of candidates) {
    if (c === x) continue;
    const d = levenshtein(fx, fold(c), bestD);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best;
}
