/** The six host builtins that go/starlarktest/assert.star is executed with. */
import {
  Builtin,
  EvalThread,
  Module,
  None,
  SFloat,
  StarlarkError,
  str,
  freezeValue,
  typeName,
  type StackFrame,
  type Value,
} from '../index.js';

export interface Failure {
  message: string;
  /** Call stack at the failure, outermost first. */
  stack: StackFrame[];
}

function oneArg(name: string, args: Value[], kwargs: Array<[string, Value]> | null): Value {
  if (args.length !== 1 || (kwargs !== null && kwargs.length > 0)) {
    throw new StarlarkError(`${name}: got ${args.length} arguments, want 1`);
  }
  return args[0] as Value;
}

const f64 = new Float64Array(1);
const u64 = new BigInt64Array(f64.buffer);

function bits(x: number): bigint {
  f64[0] = x;
  return u64[0] as bigint;
}

function floatOf(v: Value): number {
  if (v instanceof SFloat) return v.v;
  if (typeof v === 'number') return v;
  throw new StarlarkError(`floateq: got ${typeName(v)}, want float`);
}

export function assertHostBuiltins(sink: (f: Failure) => void): Map<string, Value> {
  const m = new Map<string, Value>();
  m.set(
    'error',
    new Builtin('error', (thread, args, kwargs) => {
      const v = oneArg('error', args, kwargs);
      const stack = thread instanceof EvalThread ? thread.callStack() : [];
      sink({ message: `Error: ${typeof v === 'string' ? v : str(v)}`, stack });
      return None;
    }),
  );
  m.set(
    'catch',
    new Builtin('catch', (thread, args, kwargs) => {
      const f = oneArg('catch', args, kwargs);
      try {
        thread.call(f, [], null);
      } catch (e) {
        if (e instanceof StarlarkError) return e.message;
        if (e instanceof RangeError) return 'Starlark stack overflow';
        return e instanceof Error ? e.message : String(e);
      }
      return None;
    }),
  );
  m.set(
    'matches',
    new Builtin('matches', (_t, args) => {
      const [pattern, s] = args;
      if (typeof pattern !== 'string' || typeof s !== 'string')
        throw new StarlarkError('matches: want (pattern, str)');
      return new RegExp(pattern).test(s);
    }),
  );
  m.set(
    'module',
    new Builtin('module', (_t, args, kwargs) => {
      const name = args[0];
      if (typeof name !== 'string' || args.length !== 1)
        throw new StarlarkError('module: want 1 positional name');
      return new Module(name, new Map(kwargs ?? []));
    }),
  );
  m.set(
    '_freeze',
    new Builtin('freeze', (_t, args, kwargs) => {
      const v = oneArg('freeze', args, kwargs);
      freezeValue(v);
      return v;
    }),
  );
  m.set(
    '_floateq',
    new Builtin('floateq', (_t, args) => {
      if (args.length !== 2) throw new StarlarkError('floateq: want 2 arguments');
      const x = floatOf(args[0] as Value);
      const y = floatOf(args[1] as Value);
      if (x === y || (Number.isNaN(x) && Number.isNaN(y))) return true;
      const d = bits(x) - bits(y);
      return d === 1n || d === -1n;
    }),
  );
  return m;
}
