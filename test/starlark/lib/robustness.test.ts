import { describe, expect, it } from 'vitest';
import { universe } from '../../../src/starlark/lib/index.js';
import { attrNames, getAttr } from '../../../src/starlark/values/ops.js';
import {
  Bytes,
  Dict,
  isCallable,
  List,
  None,
  Range,
  SFloat,
  StarlarkError,
  StarSet,
  Tuple,
  type Value,
} from '../../../src/starlark/values/index.js';
import { FakeThread } from '../values/fake-thread.js';

/** Values of every kind, including awkward ones (NaN, bigints, empties, lone surrogates). */
function samples(): Value[] {
  return [
    0,
    -1,
    7,
    2n ** 70n,
    new SFloat(1.5),
    new SFloat(NaN),
    true,
    None,
    '',
    'abc',
    '\ud800x',
    new List([1, 'a']),
    new List(),
    new Tuple([1, 2]),
    Dict.fromEntries([['k', 1]]),
    StarSet.of([1, 2]),
    Bytes.fromString('hi'),
    new Range(0, 10, 3),
  ];
}

/** Tiny deterministic PRNG so failures reproduce. */
function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
}

describe('library robustness', () => {
  it('builtins and methods fail only with StarlarkError on arbitrary arguments', () => {
    const rand = rng(42);
    const t = new FakeThread(1e6, 1e5);
    const vals = samples();
    const pick = () => vals[Math.floor(rand() * vals.length)]!;
    const callables: Value[] = [...universe.values()].filter(
      (v) => isCallable(v) && (v as { name: string }).name !== 'fail',
    );
    for (const recv of vals)
      for (const name of attrNames(recv)) callables.push(getAttr(recv, name, t));
    for (const fn of callables) {
      for (let i = 0; i < 40; i++) {
        const args = Array.from({ length: Math.floor(rand() * 4) }, pick);
        try {
          t.call(fn, args, rand() < 0.2 ? [['key', pick()]] : null);
        } catch (e) {
          if (!(e instanceof StarlarkError)) {
            throw new Error(
              `${String((fn as { name: string }).name)}(${args.length} args) threw ${String(e)}`,
            );
          }
        }
      }
    }
    expect(callables.length).toBeGreaterThan(60);
  });
});
