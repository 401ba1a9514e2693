import {
  setDifference,
  setIntersection,
  setSymmetricDifference,
  setUnion,
  unpackPositional,
} from '../values/ops.js';
import {
  HOLE,
  None,
  registerMethods,
  StarlarkError,
  StarSet,
  refuseSecret,
  typeName,
  type Thread,
  type Value,
} from '../values/index.js';
import { isIterable, iterableArg, noKwargs } from './args.js';
import { named } from './method-util.js';

type Args = Value[];
type Kw = Array<[string, Value]> | null;

/** Each argument as a set (sets as-is, other iterables converted). */
function asSets(name: string, args: Args, thread: Thread): StarSet[] {
  return args.map((a, i) => {
    if (a instanceof StarSet) return a;
    refuseSecret(a, name);
    if (!isIterable(a))
      throw new StarlarkError(`${name}: argument #${i + 1} is not iterable: ${typeName(a)}`);
    return named(name, () => StarSet.of(iterableArg(name, a, thread)));
  });
}

function add(_t: Thread, args: Args, kw: Kw, self: Value): Value {
  const [x] = unpackPositional('add', args, kw, 1, 1);
  named('add', () => (self as StarSet).add(x!));
  return None;
}

function clear(_t: Thread, args: Args, kw: Kw, self: Value): Value {
  unpackPositional('clear', args, kw, 0, 0);
  named('clear', () => (self as StarSet).clear());
  return None;
}

function discard(_t: Thread, args: Args, kw: Kw, self: Value): Value {
  const [x] = unpackPositional('discard', args, kw, 1, 1);
  named('discard', () => (self as StarSet).discard(x!));
  return None;
}

function remove(_t: Thread, args: Args, kw: Kw, self: Value): Value {
  const [x] = unpackPositional('remove', args, kw, 1, 1);
  if (!named('remove', () => (self as StarSet).discard(x!)))
    throw new StarlarkError('remove: missing key');
  return None;
}

function pop(_t: Thread, args: Args, kw: Kw, self: Value): Value {
  unpackPositional('pop', args, kw, 0, 0);
  const s = self as StarSet;
  named('pop', () => s.checkMutable('delete from'));
  const slot = s.firstSlot();
  if (slot < 0) throw new StarlarkError('pop: empty set');
  const k = s.keys[slot]!;
  s.discard(k);
  return k;
}

/** A non-mutating algebra method taking any number of iterables. */
function algebra(name: string, op: (x: StarSet, y: StarSet) => StarSet) {
  return (thread: Thread, args: Args, kw: Kw, self: Value): Value => {
    noKwargs(name, kw);
    let acc = setUnion(self as StarSet, new StarSet());
    for (const s of asSets(name, args, thread)) acc = op(acc, s);
    return acc;
  };
}

/** An in-place algebra method (`update`, `*_update`). */
function inPlace(name: string, op: (x: StarSet, y: StarSet) => StarSet) {
  return (thread: Thread, args: Args, kw: Kw, self: Value): Value => {
    if (kw !== null && kw.length > 0)
      throw new StarlarkError(`${name}: does not accept keyword arguments`);
    const s = self as StarSet;
    named(name, () => s.checkMutable(name === 'update' ? 'insert into' : 'delete from'));
    let acc: StarSet = setUnion(s, new StarSet());
    for (const o of asSets(name, args, thread)) acc = op(acc, o);
    named(name, () => {
      s.clear();
      for (const k of acc.keys) if (k !== HOLE) s.add(k);
    });
    return None;
  };
}

function subsetTest(name: string, test: (x: StarSet, y: StarSet) => boolean) {
  return (thread: Thread, args: Args, kw: Kw, self: Value): Value => {
    const [o] = unpackPositional(name, args, kw, 1, 1);
    const [other] = asSets(name, [o!], thread);
    return test(self as StarSet, other!);
  };
}

registerMethods('set', {
  add,
  clear,
  difference: algebra('difference', setDifference),
  difference_update: inPlace('difference_update', setDifference),
  discard,
  intersection: algebra('intersection', setIntersection),
  intersection_update: inPlace('intersection_update', setIntersection),
  isdisjoint: subsetTest('isdisjoint', (x, y) => setIntersection(x, y).size === 0),
  issubset: subsetTest('issubset', (x, y) => x.isSubsetOf(y)),
  issuperset: subsetTest('issuperset', (x, y) => y.isSubsetOf(x)),
  pop,
  remove,
  symmetric_difference: algebra('symmetric_difference', setSymmetricDifference),
  symmetric_difference_update: inPlace('symmetric_difference_update', setSymmetricDifference),
  union: algebra('union', setUnion),
  update: inPlace('update', setUnion),
});
