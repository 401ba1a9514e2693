/** Character-class and case helpers for the str methods (Python semantics over code points). */

export const isUpperChar = (c: string): boolean => c !== c.toLowerCase() && c === c.toUpperCase();
export const isLowerChar = (c: string): boolean => c !== c.toUpperCase() && c === c.toLowerCase();
export const isCased = (c: string): boolean => c.toLowerCase() !== c.toUpperCase();
export const letterRe = /^\p{L}$/u;
export const digitRe = /^\p{Nd}$/u;
export const alnumRe = /^[\p{L}\p{N}]$/u;

export function allChars(s: string, test: (c: string) => boolean): boolean {
  if (s.length === 0) return false;
  for (const c of s) if (!test(c)) return false;
  return true;
}

/** Python `title()`: a cased letter after an uncased character starts a word. */
export function title(s: string): string {
  let out = '';
  let prevCased = false;
  for (const c of s) {
    out += prevCased ? c.toLowerCase() : c.toUpperCase();
    prevCased = isCased(c);
  }
  return out;
}

export function istitle(s: string): boolean {
  let prevCased = false;
  let sawCased = false;
  for (const c of s) {
    if (isUpperChar(c)) {
      if (prevCased) return false;
      prevCased = true;
      sawCased = true;
    } else if (isLowerChar(c)) {
      if (!prevCased) return false;
      prevCased = true;
      sawCased = true;
    } else prevCased = false;
  }
  return sawCased;
}

export function hasCasedAnd(s: string, ok: (c: string) => boolean): boolean {
  let cased = false;
  for (const c of s) {
    if (isCased(c)) {
      if (!ok(c)) return false;
      cased = true;
    }
  }
  return cased;
}
