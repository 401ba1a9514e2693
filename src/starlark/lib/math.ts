import { floatToInt, intToFloat } from '../values/ops.js';
import {
  builtin,
  Module,
  SFloat,
  StarlarkError,
  typeName,
  type Builtin,
  type Value,
} from '../values/index.js';

/** The `math` module of starlark-go (lib/math): float functions over int or float arguments. */

function num(fnName: string, param: string, v: Value | undefined): number {
  if (typeof v === 'number' || typeof v === 'bigint') return intToFloat(v);
  if (v instanceof SFloat) return v.v;
  if (v === undefined) throw new StarlarkError(`${fnName}: missing argument for ${param}`);
  throw new StarlarkError(
    `${fnName}: for parameter ${param}: got ${typeName(v)}, want float or int`,
  );
}

function checkArity(
  name: string,
  args: Value[],
  kwargs: Array<[string, Value]> | null,
  params: string[],
  min: number,
): Value[] {
  const out: Value[] = [...args];
  if (args.length > params.length)
    throw new StarlarkError(`${name}: got ${args.length} arguments, want at most ${params.length}`);
  for (const [k, v] of kwargs ?? []) {
    const i = params.indexOf(k);
    if (i < 0) throw new StarlarkError(`${name}: unexpected keyword argument ${k}`);
    out[i] = v;
  }
  if (out.length < min)
    throw new StarlarkError(`${name}: missing argument for ${params[out.length]}`);
  return out;
}

function unary(name: string, f: (x: number) => number): Builtin {
  const full = `math.${name}`;
  return builtin(name, (_t, args, kwargs) => {
    const [x] = checkArity(full, args, kwargs, ['x'], 1);
    return new SFloat(f(num(full, 'x', x)));
  });
}

function binaryFn(name: string, f: (x: number, y: number) => number): Builtin {
  const full = `math.${name}`;
  return builtin(name, (_t, args, kwargs) => {
    const [x, y] = checkArity(full, args, kwargs, ['x', 'y'], 2);
    return new SFloat(f(num(full, 'x', x), num(full, 'y', y)));
  });
}

/** ceil/floor return ints; ints pass through unchanged. */
function rounding(name: string, f: (x: number) => number): Builtin {
  const full = `math.${name}`;
  return builtin(name, (_t, args, kwargs) => {
    const [x] = checkArity(full, args, kwargs, ['x'], 1);
    if (typeof x === 'number' || typeof x === 'bigint') return x;
    return floatToInt(f(num(full, 'x', x)));
  });
}

/** IEEE 754 remainder: x - n*y with n the integer nearest x/y (ties to even). */
function ieeeRemainder(x: number, y: number): number {
  if (!Number.isFinite(x) || y !== y || y === 0) return NaN;
  if (!Number.isFinite(y)) return x;
  const q = x / y;
  let n = Math.round(q);
  if (Math.abs(q - Math.trunc(q)) === 0.5) n = 2 * Math.round(q / 2);
  return x - n * y;
}

/** Go's math.Round: half away from zero. */
function roundHalfAway(x: number): number {
  if (!Number.isFinite(x)) return x;
  // Math.round rounds halves up, which on the magnitude is away from zero.
  const t = Math.round(Math.abs(x));
  return x < 0 || Object.is(x, -0) ? -t : t;
}

const LANCZOS = [
  0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531,
  -176.61503916999186, 12.507343278686905, -0.13857109526572012, 9.984369578019572e-6,
  1.5056327351493116e-7,
];

function gamma(x: number): number {
  if (x !== x || x === -Infinity) return NaN;
  if (x === Infinity) return Infinity;
  if (x === 0) return Object.is(x, -0) ? -Infinity : Infinity;
  if (x < 0 && Number.isInteger(x)) return NaN;
  if (Number.isInteger(x) && x <= 171) {
    let r = 1;
    for (let i = 2; i < x; i++) r *= i;
    return r;
  }
  if (x < 0.5) return Math.PI / (Math.sin(Math.PI * x) * gamma(1 - x));
  const z = x - 1;
  let a = LANCZOS[0]!;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i]! / (z + i);
  return Math.sqrt(2 * Math.PI) * Math.pow(t, z + 0.5) * Math.exp(-t) * a;
}

const log = builtin('log', (_t, args, kwargs) => {
  const [x, base] = checkArity('math.log', args, kwargs, ['x', 'base'], 1);
  const lx = Math.log(num('math.log', 'x', x));
  if (base === undefined) return new SFloat(lx);
  const lb = Math.log(num('math.log', 'base', base));
  if (lb === 0) throw new StarlarkError('math.log: division by zero');
  return new SFloat(lx / lb);
});

/** A fresh `math` module value. */
export function mathModule(): Module {
  const members: Record<string, Value> = {
    e: new SFloat(Math.E),
    pi: new SFloat(Math.PI),
    ceil: rounding('ceil', Math.ceil),
    floor: rounding('floor', Math.floor),
    fabs: unary('fabs', Math.abs),
    copysign: binaryFn('copysign', (x, y) =>
      y < 0 || Object.is(y, -0) ? -Math.abs(x) : Math.abs(x),
    ),
    mod: binaryFn('mod', (x, y) => x % y),
    pow: binaryFn('pow', Math.pow),
    remainder: binaryFn('remainder', ieeeRemainder),
    round: unary('round', roundHalfAway),
    exp: unary('exp', Math.exp),
    sqrt: unary('sqrt', Math.sqrt),
    acos: unary('acos', Math.acos),
    asin: unary('asin', Math.asin),
    atan: unary('atan', Math.atan),
    atan2: binaryFn('atan2', Math.atan2),
    cos: unary('cos', Math.cos),
    hypot: binaryFn('hypot', Math.hypot),
    sin: unary('sin', Math.sin),
    tan: unary('tan', Math.tan),
    degrees: unary('degrees', (x) => (x * 180) / Math.PI),
    radians: unary('radians', (x) => (x * Math.PI) / 180),
    acosh: unary('acosh', Math.acosh),
    asinh: unary('asinh', Math.asinh),
    atanh: unary('atanh', Math.atanh),
    cosh: unary('cosh', Math.cosh),
    sinh: unary('sinh', Math.sinh),
    tanh: unary('tanh', Math.tanh),
    log,
    gamma: unary('gamma', gamma),
  };
  const m = new Module('math', members);
  m.freeze();
  return m;
}
