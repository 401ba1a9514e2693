import {
  floatToInt,
  intToFloat,
  truth,
  unpackArgs,
  unpackPositional,
  wantSmallInt,
} from '../values/ops.js';
import {
  builtin,
  Bytes,
  Dict,
  List,
  Range,
  SFloat,
  StarlarkError,
  StarlarkObject,
  StarSet,
  refuseSecret,
  str,
  Tuple,
  typeName,
  type Builtin,
  type Thread,
  type Value,
} from '../values/index.js';
import { iterableArg } from './args.js';
import { parseFloatLiteral, parseIntLiteral } from './int-parse.js';

/** Type constructors and conversions: int float str bool bytes list tuple dict set range. */

function intFn(_t: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x, base] = unpackArgs('int', args, kwargs, ['x', 'base?']);
  if (typeof x === 'string') {
    const b = base === undefined ? 10 : wantSmallInt('int', 'base', base);
    try {
      return parseIntLiteral(x, b);
    } catch (e) {
      if (e instanceof StarlarkError && !e.message.startsWith('int:'))
        throw new StarlarkError(`int: ${e.message}`);
      throw e;
    }
  }
  if (base !== undefined)
    throw new StarlarkError("int: can't convert non-string with explicit base");
  if (typeof x === 'number' || typeof x === 'bigint') return x;
  if (typeof x === 'boolean') return x ? 1 : 0;
  if (x instanceof SFloat) return floatToInt(x.v);
  refuseSecret(x, 'int');
  throw new StarlarkError(`int: got ${typeName(x!)}, want int or string`);
}

function floatFn(_t: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x] = unpackArgs('float', args, kwargs, ['x?']);
  if (x === undefined) return new SFloat(0);
  if (typeof x === 'number' || typeof x === 'bigint') return new SFloat(intToFloat(x));
  if (x instanceof SFloat) return x;
  if (typeof x === 'boolean') return new SFloat(x ? 1 : 0);
  if (typeof x === 'string') return new SFloat(parseFloatLiteral(x));
  refuseSecret(x, 'float');
  throw new StarlarkError(`float: got ${typeName(x)}, want number or string`);
}

function strFn(_t: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x] = unpackPositional('str', args, kwargs, 1, 1);
  return str(x!);
}

function boolFn(_t: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x] = unpackPositional('bool', args, kwargs, 0, 1);
  return x === undefined ? false : truth(x);
}

function bytesFn(thread: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x] = unpackPositional('bytes', args, kwargs, 1, 1);
  if (typeof x === 'string') return Bytes.fromString(x);
  if (x instanceof Bytes) return x;
  if (!(x instanceof StarlarkObject) || x.iterate() === undefined) {
    refuseSecret(x, 'bytes');
    throw new StarlarkError(`bytes: got ${typeName(x!)}, want string, bytes, or iterable of ints`);
  }
  const items = iterableArg('bytes', x, thread);
  const out = new Uint8Array(items.length);
  items.forEach((v, i) => {
    if (typeof v !== 'number' && typeof v !== 'bigint')
      throw new StarlarkError(`bytes: at index ${i}, got ${typeName(v)}, want int`);
    if (v < 0 || v > 255)
      throw new StarlarkError(
        `bytes: at index ${i}, ${v} out of range (want value in unsigned 8-bit range)`,
      );
    out[i] = Number(v);
  });
  return new Bytes(out);
}

function listFn(thread: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x] = unpackPositional('list', args, kwargs, 0, 1);
  return new List(x === undefined ? [] : iterableArg('list', x, thread));
}

function tupleFn(thread: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x] = unpackPositional('tuple', args, kwargs, 0, 1);
  if (x === undefined) return Tuple.empty;
  if (x instanceof Tuple) return x;
  return new Tuple(iterableArg('tuple', x, thread));
}

/** Adds `pairs` (a mapping or an iterable of 2-element iterables) to `d`; shared with dict.update. */
export function updateDict(fnName: string, d: Dict, pairs: Value, thread: Thread | null): void {
  if (pairs instanceof Dict) {
    for (const [k, v] of pairs.entries()) d.set(k, v);
    return;
  }
  const items = iterableArg(fnName, pairs, thread);
  items.forEach((item, i) => {
    let kv: readonly Value[];
    if (item instanceof Tuple || item instanceof List) kv = item.items;
    else if (item instanceof StarlarkObject && item.iterate() !== undefined)
      kv = iterableArg(fnName, item, thread);
    else
      throw new StarlarkError(
        `${fnName}: cannot convert element #${i} of sequence to a dictionary entry (got ${typeName(item)}, want iterable)`,
      );
    if (kv.length !== 2)
      throw new StarlarkError(`${fnName}: element #${i} has length ${kv.length}, want 2`);
    d.set(kv[0]!, kv[1]!);
  });
}

function dictFn(thread: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  if (args.length > 1)
    throw new StarlarkError(`dict: got ${args.length} arguments, want at most 1`);
  const d = new Dict();
  if (args.length === 1) updateDict('dict', d, args[0]!, thread);
  if (kwargs !== null) {
    const seen = new Set<string>();
    for (const [k, v] of kwargs) {
      if (seen.has(k)) throw new StarlarkError(`dict: duplicate keyword arg: "${k}"`);
      seen.add(k);
      d.set(k, v);
    }
  }
  return d;
}

function setFn(thread: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const [x] = unpackPositional('set', args, kwargs, 0, 1);
  const s = new StarSet();
  if (x !== undefined) for (const v of iterableArg('set', x, thread)) s.add(v);
  return s;
}

function rangeBound(v: Value, what: string): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint')
    throw new StarlarkError(`range: ${what} ${v} out of range (want value in signed 64-bit range)`);
  refuseSecret(v, 'range');
  throw new StarlarkError(`range: for parameter ${what}: got ${typeName(v)}, want int`);
}

function rangeFn(_t: Thread, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  const a = unpackPositional('range', args, kwargs, 1, 3);
  let start = 0;
  let stop: number;
  let step = 1;
  if (a.length === 1) stop = rangeBound(a[0]!, 'stop');
  else {
    start = rangeBound(a[0]!, 'start');
    stop = rangeBound(a[1]!, 'stop');
    if (a.length === 3) step = rangeBound(a[2]!, 'step');
  }
  if (step === 0) throw new StarlarkError('range: step argument must not be zero');
  return new Range(start, stop, step);
}

export const convertBuiltins: Builtin[] = [
  builtin('int', intFn),
  builtin('float', floatFn),
  builtin('str', strFn),
  builtin('bool', boolFn),
  builtin('bytes', bytesFn),
  builtin('list', listFn),
  builtin('tuple', tupleFn),
  builtin('dict', dictFn),
  builtin('set', setFn),
  builtin('range', rangeFn),
];
