import { formatFloatShortest } from './format-float.js';
import { None, SFloat, type StarlarkObject, type Value } from './value.js';

/** Objects whose repr is in progress; a container met again prints as `...` instead of looping. */
const inProgress: StarlarkObject[] = [];

/** Backslash escapes shared by string and bytes literals' repr. */
export const escapes: Readonly<Record<number, string>> = {
  7: '\\a',
  8: '\\b',
  9: '\\t',
  10: '\\n',
  11: '\\v',
  12: '\\f',
  13: '\\r',
  34: '\\"',
  92: '\\\\',
};

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** Double-quoted Starlark string literal (starlark-go style escapes). */
export function quoteString(s: string): string {
  let plain = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 34 || c === 92 || c >= 0x7f) {
      plain = false;
      break;
    }
  }
  if (plain) return '"' + s + '"';
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const esc = escapes[c];
    if (esc !== undefined) out += esc;
    else if (c < 0x20 || c === 0x7f) out += '\\x' + hex(c, 2);
    else if (c >= 0xd800 && c <= 0xdfff) {
      const d = s.charCodeAt(i + 1);
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        out += s[i]! + s[i + 1]!;
        i++;
      } else out += '\\u' + hex(c, 4);
    } else if (c >= 0x80 && c < 0xa0) out += '\\u' + hex(c, 4);
    else out += s[i]!;
  }
  return out + '"';
}

/** What a container that contains itself prints at the point of recursion. */
function cycleMarker(o: StarlarkObject): string {
  const t = o.typeName;
  return t === 'list' ? '[...]' : t === 'dict' ? '{...}' : '...';
}

/** `repr(x)`. */
export function repr(x: Value): string {
  switch (typeof x) {
    case 'string':
      return quoteString(x);
    case 'number':
    case 'bigint':
      return String(x);
    case 'boolean':
      return x ? 'True' : 'False';
    default:
      return reprObject(x);
  }
}

function reprObject(x: SFloat | StarlarkObject | typeof None): string {
  if (x instanceof SFloat) return formatFloatShortest(x.v);
  if (x === None) return 'None';
  const o = x as StarlarkObject;
  if (inProgress.includes(o)) return cycleMarker(o);
  inProgress.push(o);
  try {
    return o.repr();
  } finally {
    inProgress.pop();
  }
}

/** `str(x)`: like repr, except that a string is itself. */
export function str(x: Value): string {
  if (typeof x === 'string') return x;
  if (typeof x === 'object' && x !== None && !(x instanceof SFloat)) {
    const o = x as StarlarkObject;
    if (inProgress.includes(o)) return cycleMarker(o);
    inProgress.push(o);
    try {
      return o.str();
    } finally {
      inProgress.pop();
    }
  }
  return repr(x);
}

/** Joins the reprs of `items` between brackets, e.g. for lists and tuples. */
export function reprItems(items: readonly Value[], open: string, close: string): string {
  let out = open;
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ', ';
    out += repr(items[i]!);
  }
  return out + close;
}
