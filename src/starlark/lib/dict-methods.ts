import { unpackPositional } from '../values/ops.js';
import {
  Dict,
  List,
  None,
  registerMethods,
  StarlarkError,
  Tuple,
  type Thread,
  type Value,
} from '../values/index.js';
import { updateDict } from './builtins-convert.js';
import { named, prefixed } from './method-util.js';

type Args = Value[];
type Kw = Array<[string, Value]> | null;

function clear(_t: Thread, args: Args, kw: Kw, self: Value): Value {
  unpackPositional('clear', args, kw, 0, 0);
  named('clear', () => (self as Dict).clear());
  return None;
}

function get(_t: Thread, args: Args, kw: Kw, self: Value): Value {
  const [k, d] = unpackPositional('get', args, kw, 1, 2);
  let v: Value | undefined;
  try {
    v = (self as Dict).get(k!);
  } catch (e) {
    throw prefixed('get', e);
  }
  return v ?? d ?? None;
}

function items(thread: Thread, args: Args, kw: Kw, self: Value): Value {
  unpackPositional('items', args, kw, 0, 0);
  const d = self as Dict;
  thread.alloc(d.size);
  return new List(d.entries().map(([k, v]) => new Tuple([k, v])));
}

function keys(thread: Thread, args: Args, kw: Kw, self: Value): Value {
  unpackPositional('keys', args, kw, 0, 0);
  const d = self as Dict;
  thread.alloc(d.size);
  return new List(d.keyList());
}

function values(thread: Thread, args: Args, kw: Kw, self: Value): Value {
  unpackPositional('values', args, kw, 0, 0);
  const d = self as Dict;
  thread.alloc(d.size);
  return new List(d.valueList());
}

function pop(_t: Thread, args: Args, kw: Kw, self: Value): Value {
  const [k, dflt] = unpackPositional('pop', args, kw, 1, 2);
  const v = named('pop', () => (self as Dict).delete(k!));
  if (v !== undefined) return v;
  if (dflt !== undefined) return dflt;
  throw new StarlarkError('pop: missing key');
}

function popitem(_t: Thread, args: Args, kw: Kw, self: Value): Value {
  unpackPositional('popitem', args, kw, 0, 0);
  const d = self as Dict;
  const s = d.firstSlot();
  if (s < 0) throw new StarlarkError('popitem: empty dict');
  const k = d.keys[s]!;
  const v = named('popitem', () => d.delete(k))!;
  return new Tuple([k, v]);
}

function setdefault(_t: Thread, args: Args, kw: Kw, self: Value): Value {
  const [k, dflt] = unpackPositional('setdefault', args, kw, 1, 2);
  const d = self as Dict;
  return named('setdefault', () => {
    const v = d.get(k!);
    if (v !== undefined) return v;
    const nv = dflt ?? None;
    d.set(k!, nv);
    return nv;
  });
}

function update(thread: Thread, args: Args, kw: Kw, self: Value): Value {
  if (args.length > 1)
    throw new StarlarkError(`update: got ${args.length} arguments, want at most 1`);
  const d = self as Dict;
  named('update', () => {
    d.checkMutable('insert into');
    if (args.length === 1) updateDict('update', d, args[0]!, thread);
    if (kw !== null) for (const [k, v] of kw) d.set(k, v);
  });
  return None;
}

registerMethods('dict', { clear, get, items, keys, pop, popitem, setdefault, update, values });
