import {
  attrNames,
  getAttr as attrAccess,
  intNeg,
  truth,
  hash as hashOf,
  len as lenOf,
  tryGetAttr,
  unpackArgs,
  unpackPositional,
  wantString,
} from '../values/ops.js';
import {
  builtin,
  Bytes,
  List,
  None,
  repr,
  SFloat,
  str,
  StarlarkError,
  Tuple,
  refuseSecret,
  typeName,
  type Builtin,
  type Thread,
  type Value,
} from '../values/index.js';
import { iterableArg } from './args.js';
import { isPlain } from './method-util.js';
// Whoever uses the builtins also needs the methods of the built-in types.
import './methods.js';

/** General builtins: abs all any chr dir enumerate fail getattr hasattr hash len ord print repr reversed type zip. */

function absFn(_t: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x] = unpackArgs('abs', args, kwargs, ['x']);
  if (typeof x === 'number') return x < 0 ? -x : x;
  if (typeof x === 'bigint') return x < 0n ? intNeg(x) : x;
  if (x instanceof SFloat) return x.v < 0 || Object.is(x.v, -0) ? new SFloat(-x.v) : x;
  refuseSecret(x, 'abs');
  throw new StarlarkError(`abs: got ${typeName(x!)}, want int or float`);
}

function allFn(thread: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x] = unpackArgs('all', args, kwargs, ['x']);
  for (const v of iterableArg('all', x!, thread)) if (!truth(v)) return false;
  return true;
}

function anyFn(thread: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x] = unpackArgs('any', args, kwargs, ['x']);
  for (const v of iterableArg('any', x!, thread)) if (truth(v)) return true;
  return false;
}

function chrFn(_t: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [i] = unpackPositional('chr', args, kwargs, 1, 1);
  // Below the surrogates a code point is one UTF-16 unit, and fromCharCode is the cheaper call.
  if (typeof i === 'number' && i >= 0 && i < 0xd800) return String.fromCharCode(i);
  if (typeof i !== 'number' && typeof i !== 'bigint') {
    refuseSecret(i, 'chr');
    throw new StarlarkError(`chr: got ${typeName(i!)}, want int`);
  }
  if (i < 0) throw new StarlarkError(`chr: Unicode code point ${i} out of range (<0)`);
  if (i > 0x10ffff)
    throw new StarlarkError(
      `chr: Unicode code point U+${i.toString(16).toUpperCase()} out of range (>0x10FFFF)`,
    );
  return String.fromCodePoint(Number(i));
}

function ordFn(_t: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [s] = unpackPositional('ord', args, kwargs, 1, 1);
  // One UTF-16 unit is one code point (a lone surrogate included): no need to split.
  if (typeof s === 'string' && s.length === 1) return s.charCodeAt(0);
  if (typeof s === 'string') {
    const cp = s.codePointAt(0);
    const n = cp === undefined ? 0 : [...s].length;
    if (n !== 1) throw new StarlarkError(`ord: string encodes ${n} Unicode code points, want 1`);
    return cp!;
  }
  if (s instanceof Bytes) {
    if (s.data.length !== 1)
      throw new StarlarkError(`ord: bytes has length ${s.data.length}, want 1`);
    return s.data[0]!;
  }
  refuseSecret(s, 'ord');
  throw new StarlarkError(`ord: got ${typeName(s!)}, want string or bytes`);
}

function dirFn(_t: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x] = unpackPositional('dir', args, kwargs, 1, 1);
  return new List(attrNames(x!));
}

function enumerateFn(thread: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x, start] = unpackArgs('enumerate', args, kwargs, ['iterable', 'start?']);
  const items = iterableArg('enumerate', x!, thread);
  let n: number | bigint = 0;
  if (start !== undefined) {
    if (typeof start !== 'number' && typeof start !== 'bigint')
      throw new StarlarkError(`enumerate: for parameter start: got ${typeName(start)}, want int`);
    n = start;
  }
  thread.alloc(items.length);
  const base = Number(n);
  return new List(
    items.map((v, i) => new Tuple([typeof n === 'number' ? base + i : n + BigInt(i), v])),
  );
}

function failFn(_t: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  let sep = ' ';
  if (kwargs !== null) {
    for (const [k, v] of kwargs) {
      if (k !== 'sep') throw new StarlarkError(`fail: unexpected keyword argument ${k}`);
      sep = wantString('fail', 'sep', v);
    }
  }
  throw new StarlarkError('fail: ' + args.map((a) => str(a)).join(sep));
}

function getattrFn(thread: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x, name, dflt] = unpackPositional('getattr', args, kwargs, 2, 3);
  const n = wantString('getattr', 'name', name!);
  const v = tryGetAttr(x!, n, thread);
  if (v !== undefined) return v;
  if (dflt !== undefined) return dflt;
  // Reuse the full error (with spelling hint) of attribute access.
  throw new StarlarkError(`getattr: ${missingAttr(x!, n)}`);
}

function missingAttr(x: Value, name: string): string {
  try {
    attrAccess(x, name, null);
  } catch (e) {
    if (e instanceof StarlarkError) return e.message;
    throw e;
  }
  return `${typeName(x)} has no .${name} field or method`;
}

function hasattrFn(thread: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x, name] = unpackPositional('hasattr', args, kwargs, 2, 2);
  return tryGetAttr(x!, wantString('hasattr', 'name', name!), thread) !== undefined;
}

function hashFn(_t: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x] = unpackPositional('hash', args, kwargs, 1, 1);
  if (typeof x === 'string') return hashOf(x);
  if (x instanceof Bytes) return x.hash();
  try {
    return hashOf(x!);
  } catch (e) {
    if (isPlain(e)) throw new StarlarkError(`hash: ${e.message}`);
    throw e;
  }
}

function lenFn(_t: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x] = unpackPositional('len', args, kwargs, 1, 1);
  try {
    return lenOf(x!);
  } catch (e) {
    if (isPlain(e)) throw new StarlarkError(`len: ${e.message}`);
    throw e;
  }
}

function printFn(thread: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  let sep = ' ';
  if (kwargs !== null) {
    for (const [k, v] of kwargs) {
      if (k !== 'sep') throw new StarlarkError(`print: unexpected keyword argument ${k}`);
      sep = wantString('print', 'sep', v);
    }
  }
  thread.print(args.map((a) => str(a)).join(sep));
  return None;
}

function reprFn(_t: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x] = unpackPositional('repr', args, kwargs, 1, 1);
  return repr(x!);
}

function reversedFn(thread: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x] = unpackPositional('reversed', args, kwargs, 1, 1);
  return new List(iterableArg('reversed', x!, thread).reverse());
}

function typeFn(_t: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x] = unpackPositional('type', args, kwargs, 1, 1);
  return typeName(x!);
}

function zipFn(thread: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  if (kwargs !== null && kwargs.length > 0)
    throw new StarlarkError('zip: unexpected keyword arguments');
  if (args.length === 0) return new List();
  const cols = args.map((a, i) => {
    try {
      return iterableArg('zip', a, thread);
    } catch {
      refuseSecret(a, 'zip');
      throw new StarlarkError(`zip: argument #${i + 1} is not iterable: ${typeName(a)}`);
    }
  });
  const n = Math.min(...cols.map((c) => c.length));
  thread.alloc(n);
  const out: Value[] = [];
  for (let i = 0; i < n; i++) out.push(new Tuple(cols.map((c) => c[i]!)));
  return new List(out);
}

export const coreBuiltins: Builtin[] = [
  builtin('abs', absFn),
  builtin('all', allFn),
  builtin('any', anyFn),
  builtin('chr', chrFn),
  builtin('dir', dirFn),
  builtin('enumerate', enumerateFn),
  builtin('fail', failFn),
  builtin('getattr', getattrFn),
  builtin('hasattr', hasattrFn),
  builtin('hash', hashFn),
  builtin('len', lenFn),
  builtin('ord', ordFn),
  builtin('print', printFn),
  builtin('repr', reprFn),
  builtin('reversed', reversedFn),
  builtin('type', typeFn),
  builtin('zip', zipFn),
];
