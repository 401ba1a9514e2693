import {
  checkIndex,
  sliceIndices,
  unpackArgs,
  unpackPositional,
  wantSmallInt,
} from '../values/ops.js';
import {
  equals,
  List,
  None,
  registerMethods,
  StarlarkError,
  type Thread,
  type Value,
} from '../values/index.js';
import { iterableArg } from './args.js';
import { named } from './method-util.js';

type Args = Value[];
type Kw = Array<[string, Value]> | null;

function append(_t: Thread, args: Args, kw: Kw, self: Value): Value {
  const [x] = unpackPositional('append', args, kw, 1, 1);
  const l = self as List;
  // Test first so the hot path allocates no closure.
  if (l.frozen || l.itercount > 0) named('append', () => l.checkMutable('append to'));
  l.items.push(x!);
  return None;
}

function clear(_t: Thread, args: Args, kw: Kw, self: Value): Value {
  unpackPositional('clear', args, kw, 0, 0);
  const l = self as List;
  named('clear', () => l.checkMutable('clear'));
  l.items.length = 0;
  return None;
}

function extend(thread: Thread, args: Args, kw: Kw, self: Value): Value {
  const [x] = unpackArgs('extend', args, kw, ['iterable']);
  const l = self as List;
  named('extend', () => l.checkMutable('extend'));
  const extra = iterableArg('extend', x!, thread);
  thread.alloc(l.items.length + extra.length);
  for (const v of extra) l.items.push(v);
  return None;
}

function index(thread: Thread, args: Args, kw: Kw, self: Value): Value {
  const [x, start, end] = unpackArgs('index', args, kw, ['x', 'start?', 'end?']);
  const items = (self as List).items;
  const [s, e] = sliceIndices(items.length, start ?? None, end ?? None, None);
  thread.steps(Math.max(0, e - s));
  for (let i = s; i < e; i++) if (equals(items[i]!, x!)) return i;
  throw new StarlarkError('index: value not in list');
}

function insert(thread: Thread, args: Args, kw: Kw, self: Value): Value {
  const [iv, x] = unpackArgs('insert', args, kw, ['index', 'x']);
  const l = self as List;
  named('insert', () => l.checkMutable('insert into'));
  const n = l.items.length;
  let i = wantSmallInt('insert', 'index', iv!);
  if (i < 0) i += n;
  i = Math.max(0, Math.min(i, n));
  thread.steps(n - i);
  l.items.splice(i, 0, x!);
  return None;
}

function pop(_t: Thread, args: Args, kw: Kw, self: Value): Value {
  const [iv] = unpackArgs('pop', args, kw, ['i?']);
  const l = self as List;
  named('pop', () => l.checkMutable('pop from'));
  const n = l.items.length;
  if (iv === undefined) {
    if (n === 0) throw new StarlarkError('pop: index -1 out of range: empty list');
    return l.items.pop()!;
  }
  const i = named('pop', () => checkIndex(iv, n, 'list').valueOf());
  return l.items.splice(i, 1)[0]!;
}

function remove(thread: Thread, args: Args, kw: Kw, self: Value): Value {
  const [x] = unpackPositional('remove', args, kw, 1, 1);
  const l = self as List;
  named('remove', () => l.checkMutable('remove from'));
  thread.steps(l.items.length);
  for (let i = 0; i < l.items.length; i++) {
    if (equals(l.items[i]!, x!)) {
      l.items.splice(i, 1);
      return None;
    }
  }
  throw new StarlarkError('remove: element not found');
}

registerMethods('list', { append, clear, extend, index, insert, pop, remove });
