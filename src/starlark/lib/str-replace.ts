import type { Thread } from '../values/index.js';

/** `s.replace(old, nw, count)` once the arguments are checked (a negative count: all). */
export function replaceIn(
  thread: Thread,
  s: string,
  old: string,
  nw: string,
  count: number,
): string {
  const limit = count < 0 ? Infinity : count;
  let out = '';
  let pos = 0;
  let done = 0;
  if (old.length === 0) {
    thread.alloc(s.length + Math.min(limit, s.length + 1) * nw.length);
    // Python inserts `new` between every character (and at both ends).
    for (; pos <= s.length && done < limit; done++) {
      out += nw + (pos < s.length ? s[pos]! : '');
      pos++;
    }
    out += s.slice(pos);
    thread.alloc(out.length);
    return out;
  }
  const first = s.indexOf(old);
  if (first < 0) return s;
  if (limit === Infinity) {
    // Every occurrence at once: one by hand, more natively. The loop below checks each partial
    // result's size; those are prefixes of the whole, so when the whole fits none failed.
    const next = first + old.length;
    const all =
      s.indexOf(old, next) < 0 ? s.slice(0, first) + nw + s.slice(next) : s.split(old).join(nw);
    if (fitsAlloc(thread, all.length)) return all;
  }
  for (let i = s.indexOf(old); i >= 0 && done < limit; i = s.indexOf(old, pos)) {
    out += s.slice(pos, i) + nw;
    pos = i + old.length;
    done++;
    thread.alloc(out.length);
  }
  return out + s.slice(pos);
}

/** Whether an allocation of `n` would pass `thread.alloc`. */
function fitsAlloc(thread: Thread, n: number): boolean {
  try {
    thread.alloc(n);
    return true;
  } catch {
    return false;
  }
}
