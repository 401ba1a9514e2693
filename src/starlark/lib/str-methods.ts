import {
  sliceIndices,
  unpackArgs,
  unpackPositional,
  wantSmallInt,
  wantString,
} from '../values/ops.js';
import {
  chargeWork,
  composeSecret,
  None,
  refuseSecret,
  registerMethods,
  Secret,
  StarlarkError,
  Tuple,
  typeName,
  type Thread,
  type Value,
} from '../values/index.js';
import { iterableItems } from './args.js';
import { joinStrings } from './join-strings.js';
import { strFormat } from './str-format.js';
import { replaceIn } from './str-replace.js';
import { splitMethods } from './str-split.js';
import { stringView } from './string-iterables.js';
import {
  allChars,
  alnumRe,
  digitRe,
  hasCasedAnd,
  isLowerChar,
  isUpperChar,
  istitle,
  letterRe,
  title,
} from './str-case.js';

/** Methods of `str` (UTF-16 code units throughout, see values/value.ts). */

type Args = Value[];
type Kw = Array<[string, Value]> | null;
type Method = (thread: Thread, args: Args, kw: Kw, self: Value) => Value;

/** The [start:end] window of `s` used by find/count/startswith. */
function window(s: string, start: Value | undefined, end: Value | undefined): [number, number] {
  const [lo, hi] = sliceIndices(s.length, start ?? None, end ?? None, None);
  return [lo, Math.max(lo, hi)];
}

function sliceWindow(s: string, start: Value | undefined, end: Value | undefined): string {
  const [lo, hi] = window(s, start, end);
  return s.slice(lo, hi);
}

function findImpl(name: string, last: boolean, mustFind: boolean): Method {
  return (_t, args, kw, self) => {
    const s = self as string;
    const [sub, start, end] = unpackArgs(name, args, kw, ['sub', 'start??', 'end??']);
    const needle = wantString(name, 'sub', sub!);
    if (start === undefined && end === undefined) {
      const i = last ? s.lastIndexOf(needle) : s.indexOf(needle);
      if (i < 0 && mustFind) throw new StarlarkError(`${name}: substring not found`);
      return i;
    }
    const [lo, hi] = window(s, start, end);
    const part = s.slice(lo, hi);
    const i = last ? part.lastIndexOf(needle) : part.indexOf(needle);
    if (i < 0) {
      if (mustFind) throw new StarlarkError(`${name}: substring not found`);
      return -1;
    }
    return i + lo;
  };
}

function count(_t: Thread, args: Args, kw: Kw, self: Value): Value {
  const s = self as string;
  const [sub, start, end] = unpackArgs('count', args, kw, ['sub', 'start??', 'end??']);
  const needle = wantString('count', 'sub', sub!);
  const [lo, hi] = window(s, start, end);
  const part = s.slice(lo, hi);
  if (needle.length === 0) return part.length + 1;
  let n = 0;
  for (let i = part.indexOf(needle); i >= 0; i = part.indexOf(needle, i + needle.length)) n++;
  return n;
}

function affixImpl(name: string, suffix: boolean): Method {
  return (_t, args, kw, self) => {
    const s = self as string;
    // The common `s.startswith("x")` needs no argument unpacking.
    if (kw === null && args.length === 1 && typeof args[0] === 'string')
      return suffix ? s.endsWith(args[0]) : s.startsWith(args[0]);
    const [x, start, end] = unpackArgs(name, args, kw, [
      suffix ? 'suffix' : 'prefix',
      'start??',
      'end??',
    ]);
    // Without bounds the whole string is tested, so skip the copy.
    const part = start === undefined && end === undefined ? s : sliceWindow(s, start, end);
    const test = (a: string): boolean => (suffix ? part.endsWith(a) : part.startsWith(a));
    if (typeof x === 'string') return test(x);
    if (x instanceof Tuple) {
      return x.items.some((a, i) => {
        if (typeof a !== 'string') {
          refuseSecret(a, name);
          throw new StarlarkError(`${name}: want string, got ${typeName(a)}, for element ${i}`);
        }
        return test(a);
      });
    }
    refuseSecret(x, name);
    throw new StarlarkError(`${name}: got ${typeName(x!)}, want string or tuple of string`);
  };
}

const WS =
  ' \t\n\v\f\r\u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';

function stripImpl(name: string, left: boolean, right: boolean): Method {
  return (_t, args, kw, self) => {
    const s = self as string;
    const [c] = unpackPositional(name, args, kw, 0, 1);
    const chars = c === undefined || c === None ? WS : wantString(name, 'cutset', c);
    let i = 0;
    let j = s.length;
    if (left) while (i < j && chars.includes(s[i]!)) i++;
    if (right) while (j > i && chars.includes(s[j - 1]!)) j--;
    return s.slice(i, j);
  };
}

function noArgs(name: string, f: (s: string) => Value): Method {
  return (_t, args, kw, self) => {
    unpackPositional(name, args, kw, 0, 0);
    return f(self as string);
  };
}

function join(thread: Thread, args: Args, kw: Kw, self: Value): Value {
  const [x] = unpackPositional('join', args, kw, 1, 1);
  const items = iterableItems('join', x!, thread);
  const total = joinedLength(items, (self as string).length);
  if (total < 0)
    return joinSecrets(items as ReadonlyArray<string | Secret>, self as string, thread);
  thread.alloc(total);
  return joinStrings(items as readonly string[], self as string, total);
}

/** `sep.join(items)` where some items are secrets: a secret of the same text. */
function joinSecrets(items: ReadonlyArray<string | Secret>, sep: string, thread: Thread): Value {
  const pieces: Array<string | Secret> = [];
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && sep !== '') pieces.push(sep);
    pieces.push(items[i]!);
  }
  return composeSecret(pieces, thread);
}

/**
 * Length of `items` (all strings, else the error; -1 when all are strings or secrets and some
 * are secrets) joined by a separator of `sep` units. A
 * function of its own, ending with its loop: V8 optimises the hot loop of a rarely called
 * builtin on the spot (OSR), and that code must not be re-entered, call after call, only to
 * deoptimise at code after the loop that had not run when it was compiled.
 */
function joinedLength(items: readonly Value[], sep: number): number {
  let total = items.length > 0 ? sep * (items.length - 1) : 0;
  let secrets = false;
  for (let i = 0; i < items.length; i++) {
    const v = items[i];
    if (typeof v !== 'string') {
      if (v instanceof Secret) {
        secrets = true;
        continue;
      }
      throw new StarlarkError(`join: in list, want string, got ${typeName(v!)}`);
    }
    total += v.length;
  }
  return secrets ? -1 : total;
}

function partitionImpl(name: string, last: boolean): Method {
  return (_t, args, kw, self) => {
    const s = self as string;
    const [x] = unpackPositional(name, args, kw, 1, 1);
    const sep = wantString(name, 'sep', x!);
    if (sep.length === 0) throw new StarlarkError(`${name}: empty separator`);
    const i = last ? s.lastIndexOf(sep) : s.indexOf(sep);
    if (i < 0) return last ? new Tuple(['', '', s]) : new Tuple([s, '', '']);
    return new Tuple([s.slice(0, i), sep, s.slice(i + sep.length)]);
  };
}

function replace(thread: Thread, args: Args, kw: Kw, self: Value): Value {
  const s = self as string;
  const [o, n, c] = unpackArgs('replace', args, kw, ['old', 'new', 'count?']);
  const old = wantString('replace', 'old', o!);
  const nw = wantString('replace', 'new', n!);
  return replaceIn(thread, s, old, nw, c === undefined ? -1 : wantSmallInt('replace', 'count', c));
}

function affixRemove(name: string, suffix: boolean): Method {
  return (_t, args, kw, self) => {
    const s = self as string;
    const [x] = unpackPositional(name, args, kw, 1, 1);
    const a = wantString(name, suffix ? 'suffix' : 'prefix', x!);
    if (a.length === 0) return s;
    if (suffix) return s.endsWith(a) ? s.slice(0, s.length - a.length) : s;
    return s.startsWith(a) ? s.slice(a.length) : s;
  };
}

function view(name: 'elems' | 'elem_ords' | 'codepoints' | 'codepoint_ords'): Method {
  return noArgs(name, (s) => stringView(s, name));
}

function format(thread: Thread, args: Args, kw: Kw, self: Value): Value {
  return strFormat(thread, self as string, args, kw);
}

const stringMethods: Record<string, Method> = {
  capitalize: noArgs('capitalize', (s) =>
    s.length === 0 ? s : s[0]!.toUpperCase() + s.slice(1).toLowerCase(),
  ),
  codepoint_ords: view('codepoint_ords'),
  codepoints: view('codepoints'),
  count,
  elem_ords: view('elem_ords'),
  elems: view('elems'),
  endswith: affixImpl('endswith', true),
  find: findImpl('find', false, false),
  format,
  index: findImpl('index', false, true),
  isalnum: noArgs('isalnum', (s) => allChars(s, (c) => alnumRe.test(c))),
  isalpha: noArgs('isalpha', (s) => allChars(s, (c) => letterRe.test(c))),
  isdigit: noArgs('isdigit', (s) => allChars(s, (c) => digitRe.test(c))),
  islower: noArgs('islower', (s) => hasCasedAnd(s, isLowerChar)),
  isspace: noArgs('isspace', (s) => allChars(s, (c) => WS.includes(c))),
  istitle: noArgs('istitle', istitle),
  isupper: noArgs('isupper', (s) => hasCasedAnd(s, isUpperChar)),
  join,
  lower: noArgs('lower', (s) => s.toLowerCase()),
  lstrip: stripImpl('lstrip', true, false),
  partition: partitionImpl('partition', false),
  removeprefix: affixRemove('removeprefix', false),
  removesuffix: affixRemove('removesuffix', true),
  replace,
  rfind: findImpl('rfind', true, false),
  rindex: findImpl('rindex', true, true),
  rpartition: partitionImpl('rpartition', true),
  rstrip: stripImpl('rstrip', false, true),
  startswith: affixImpl('startswith', false),
  strip: stripImpl('strip', true, true),
  title: noArgs('title', title),
  upper: noArgs('upper', (s) => s.toUpperCase()),
  ...splitMethods,
};

/** Methods whose work does not grow with the receiver's length. */
const constantWork = new Set([
  'startswith',
  'endswith',
  'elems',
  'elem_ords',
  'codepoints',
  'codepoint_ords',
  'removeprefix',
]);

// Every other method scans the receiver, so it is charged steps in proportion to its length.
for (const [name, impl] of Object.entries(stringMethods)) {
  if (constantWork.has(name)) continue;
  stringMethods[name] = (thread, args, kw, self) => {
    chargeWork(thread, (self as string).length);
    return impl(thread, args, kw, self);
  };
}

registerMethods('string', stringMethods);
