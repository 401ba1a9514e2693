/**
 * Inline fast paths for the calls scripts make most in their loops: `len`, `ord`, `chr`, `str`
 * and `range` of the standard universe, and the `x.append(v)`, `s.startswith(t)`, `s.endswith(t)`
 * method shapes. A cold run spends most of its time before V8 optimises anything, when every
 * helper call, argument array and method-table lookup costs; inline, the common case is a few
 * bytecodes in the script's own function, which is also what V8 optimises first.
 *
 * Each fast path tests its operand types and otherwise takes the generic call (`callBuiltin`,
 * `callAt`) with the same arguments, so errors, positions and the "Error in NAME:" tag come from
 * the one generic implementation. A fast path only ever takes a case that cannot fail and
 * charges no steps on the generic path either.
 */
import { Builtin, type Value } from '../values/index.js';
import { universe } from '../lib/index.js';
import type { Emitter } from './gen-emitter.js';

/**
 * JS for `name(x)` when the generic call would return the same value without failing, as a
 * condition and a value; `x` is an atom (evaluated more than once).
 */
const builtinShapes: Record<string, (x: string) => [string, string]> = {
  // lenFn: a string's length in UTF-16 units, a list's or tuple's element count.
  len: (x) => [
    `typeof ${x} === 'string' || ${x} instanceof List || ${x} instanceof Tuple`,
    `typeof ${x} === 'string' ? ${x}.length : ${x}.items.length`,
  ],
  // ordFn: one UTF-16 unit is one code point, a lone surrogate included.
  ord: (x) => [`typeof ${x} === 'string' && ${x}.length === 1`, `${x}.charCodeAt(0)`],
  // chrFn: below the surrogates a code point is one UTF-16 unit.
  chr: (x) => [`typeof ${x} === 'number' && ${x} >= 0 && ${x} < 55296`, `fromCharCode(${x})`],
  // rangeFn: one int bound (a big int fails, on the generic path).
  range: (x) => [`typeof ${x} === 'number'`, `new Range(0, ${x}, 1)`],
  // str of a string is itself; of an int (a safe integer as a JS number), its decimal digits.
  str: (x) => [
    `typeof ${x} === 'string' || typeof ${x} === 'number'`,
    `typeof ${x} === 'string' ? ${x} : numStr(${x})`,
  ],
};

/** True when `fn`, bound to `name`, is the standard library's own builtin of that name. */
export function isStandardBuiltin(name: string, fn: Value | undefined): boolean {
  return fn instanceof Builtin && universe.get(name) === fn;
}

/**
 * Emits `t = name(arg)` for a universal builtin called with one positional argument (`range`
 * with two or three as well), when
 * `fn` is the standard library's own builtin of that name (a host universe may bind the name
 * to something else); false when there is no fast path. `f.pos` is already set.
 */
export function genBuiltinFast(
  em: Emitter,
  name: string,
  fn: Value | undefined,
  fnx: string,
  args: readonly string[],
  t: string,
): boolean {
  if (!isStandardBuiltin(name, fn)) return false;
  if (name === 'range' && (args.length === 2 || args.length === 3)) {
    // rangeFn with int bounds: only a zero step fails, on the generic path.
    const xs = args.map((a) => em.obj(a));
    const ints = xs.map((x) => `typeof ${x} === 'number'`).join(' && ');
    const step = xs[2] ?? '1';
    const ok = xs.length === 3 ? `${ints} && ${step} !== 0` : ints;
    em.emit(
      `${t} = ${ok} ? new Range(${xs[0]}, ${xs[1]}, ${step}) : callBuiltin(f, ${fnx}, [${xs.join(', ')}]);`,
    );
    return true;
  }
  // Own properties only: the name is the script's, and may be `constructor` or `__proto__`.
  const shape = Object.hasOwn(builtinShapes, name) ? builtinShapes[name] : undefined;
  if (shape === undefined || args.length !== 1) return false;
  const x = em.obj(args[0] as string);
  const [test, value] = shape(x);
  em.emit(`${t} = ${test} ? ${value} : callBuiltin(f, ${fnx}, [${x}]);`);
  return true;
}

type Shape = (r: string, a: string[], t: string, call: string, site: string) => [string, string];

/** `lower`/`upper`: a string below 64 units is charged no steps (`chargeWork`). */
const caseShape =
  (js: string): Shape =>
  (r, _a, t) => [`typeof ${r} === 'string' && ${r}.length < 64`, `${t} = ${r}.${js}();`];

/**
 * Method shapes by name and arity: a JS condition and statement on receiver `r`, argument
 * atoms `a` and result `t`. List and Dict have no subclass and no attributes beyond their
 * type's methods, so `instanceof` is `callAt`'s own test for their native methods.
 */
const methodShapes: Record<string, Shape> = {
  // list.append: a frozen list or one being iterated fails, on the generic path.
  append: (r, [a], t) => [
    `${r} instanceof List && ${r}.itercount === 0 && !${r}.frozen`,
    `${r}.items.push(${a}); ${t} = None;`,
  ],
  // str.startswith/endswith charge no steps (constant work), and take a string at once.
  startswith: (r, [a], t) => [
    `typeof ${r} === 'string' && typeof ${a} === 'string'`,
    `${t} = ${r}.startsWith(${a});`,
  ],
  endswith: (r, [a], t) => [
    `typeof ${r} === 'string' && typeof ${a} === 'string'`,
    `${t} = ${r}.endsWith(${a});`,
  ],
  // dict.get: a string or int key cannot fail to hash.
  get: (r, [k, d], t) => [
    `${r} instanceof Dict && (typeof ${k} === 'string' || typeof ${k} === 'number')`,
    `${t} = ${r}.get(${k}); if (${t} === undefined) ${t} = ${d ?? 'None'};`,
  ],
  lower: caseShape('toLowerCase'),
  upper: caseShape('toUpperCase'),
  // str.replace: its own checks and work in a helper, the generic call otherwise.
  replace: (r, [a, b], t, _call, site) => [
    'true',
    `${t} = strReplace(f, ${site}, ${r}, ${a}, ${b});`,
  ],
};

const methodArity: Record<string, readonly number[]> = {
  append: [1],
  startswith: [1],
  endswith: [1],
  get: [1, 2],
  lower: [0],
  upper: [0],
  replace: [2],
};

/**
 * Emits `t = r.name(args)` with a fast path when the shape has one, else the plain `callAt`
 * through `site` (the constant holding the call's MethodSite).
 */
export function genMethodFast(
  em: Emitter,
  name: string,
  r: string,
  args: readonly string[],
  t: string,
  pos: string,
  site: string,
): void {
  const call = `callAt(f, ${site}, ${r}, [${args.join(', ')}])`;
  // Own properties only: the name is the script's, and may be `constructor` or `__proto__`.
  const shape = Object.hasOwn(methodShapes, name) ? methodShapes[name] : undefined;
  if (shape === undefined || !methodArity[name]!.includes(args.length)) {
    em.emit(`${t} = ${call};`);
    return;
  }
  const ro = em.obj(r);
  const [test, stmt] = shape(ro, [...args], t, call, site);
  // `callAt` would set the position first; later step-limit errors report the last one set.
  em.emit(`f.pos = ${pos};`);
  em.emit(test === 'true' ? stmt : `if (${test}) { ${stmt} } else ${t} = ${call};`);
}
