import { Secret } from './secret.js';
import { nearest } from './spell.js';
import { typeName } from './type-name.js';
import { None, StarlarkError, type Value } from './value.js';

/**
 * Parameter spec in starlark-go's UnpackArgs style: "x" is required, "x?" optional, and
 * "x??" optional with `None` treated as absent. Parameters after the first optional one
 * are optional too.
 */
interface ParsedSpec {
  names: string[];
  required: number;
  noneIsAbsent: boolean[];
}

const specCache = new Map<string, ParsedSpec>();

function parseSpec(spec: readonly string[]): ParsedSpec {
  const key = spec.join(',');
  let p = specCache.get(key);
  if (p === undefined) {
    const names: string[] = [];
    const noneIsAbsent: boolean[] = [];
    let required = -1;
    spec.forEach((s, i) => {
      const optional = s.endsWith('?');
      if (optional && required < 0) required = i;
      noneIsAbsent.push(s.endsWith('??'));
      names.push(s.replace(/\?+$/, ''));
    });
    p = { names, required: required < 0 ? spec.length : required, noneIsAbsent };
    specCache.set(key, p);
  }
  return p;
}

/**
 * Binds positional and keyword arguments to the named parameters of a builtin. The result
 * has one slot per parameter; absent optional parameters are `undefined`.
 */
export function unpackArgs(
  fnName: string,
  args: readonly Value[],
  kwargs: ReadonlyArray<readonly [string, Value]> | null,
  spec: readonly string[],
): Array<Value | undefined> {
  if (kwargs === null || kwargs.length === 0) return unpackPositionalSpec(fnName, args, spec);
  const p = parseSpec(spec);
  const n = p.names.length;
  if (args.length > n) {
    throw new StarlarkError(`${fnName}: got ${args.length} arguments, want at most ${n}`);
  }
  const out = new Array<Value | undefined>(n);
  for (let i = 0; i < args.length; i++) out[i] = args[i];
  if (kwargs !== null) {
    for (const [k, v] of kwargs) {
      const i = p.names.indexOf(k);
      if (i < 0) {
        const hint = nearest(k, p.names);
        throw new StarlarkError(
          `${fnName}: unexpected keyword argument ${k}${hint === undefined ? '' : ` (did you mean ${hint}?)`}`,
        );
      }
      if (out[i] !== undefined)
        throw new StarlarkError(`${fnName}: got multiple values for keyword argument "${k}"`);
      out[i] = v;
    }
  }
  for (let i = 0; i < n; i++) {
    if (out[i] === None && p.noneIsAbsent[i]) out[i] = undefined;
    if (out[i] === undefined && i < p.required)
      throw new StarlarkError(`${fnName}: missing argument for ${p.names[i]}`);
  }
  return out;
}

const QUESTION = 63;

/** The common case without keywords: no spec parsing and no Map lookups. */
function unpackPositionalSpec(
  fnName: string,
  args: readonly Value[],
  spec: readonly string[],
): Array<Value | undefined> {
  const n = spec.length;
  if (args.length > n)
    throw new StarlarkError(`${fnName}: got ${args.length} arguments, want at most ${n}`);
  const out = new Array<Value | undefined>(n);
  for (let i = 0; i < n; i++) {
    const s = spec[i]!;
    const v = i < args.length ? args[i] : undefined;
    if (v === undefined) {
      if (s.charCodeAt(s.length - 1) !== QUESTION)
        throw new StarlarkError(`${fnName}: missing argument for ${s}`);
    } else if (v === None && s.endsWith('??')) {
      continue;
    }
    out[i] = v;
  }
  return out;
}

/** Positional-only arguments: between `min` and `max` of them, no keywords. */
export function unpackPositional(
  fnName: string,
  args: readonly Value[],
  kwargs: ReadonlyArray<readonly [string, Value]> | null,
  min: number,
  max: number,
): readonly Value[] {
  if (kwargs !== null && kwargs.length > 0)
    throw new StarlarkError(`${fnName}: unexpected keyword arguments`);
  if (args.length < min) {
    throw new StarlarkError(
      `${fnName}: got ${args.length} arguments, want ${min < max ? 'at least ' : ''}${min}`,
    );
  }
  if (args.length > max) {
    throw new StarlarkError(
      `${fnName}: got ${args.length} arguments, want ${max > min ? 'at most ' : ''}${max}`,
    );
  }
  return args;
}

/** Error for a parameter of the wrong type, as UnpackArgs words it (a secret's read error for a secret). */
export function paramError(fnName: string, param: string, v: Value, want: string): StarlarkError {
  if (v instanceof Secret) return v.refuse(fnName);
  return new StarlarkError(`${fnName}: for parameter ${param}: got ${typeName(v)}, want ${want}`);
}

export function wantString(fnName: string, param: string, v: Value): string {
  if (typeof v !== 'string') throw paramError(fnName, param, v, 'string');
  return v;
}

export function wantInt(fnName: string, param: string, v: Value): number | bigint {
  if (typeof v !== 'number' && typeof v !== 'bigint') throw paramError(fnName, param, v, 'int');
  return v;
}

/** A small int (JS number); bigints are out of range for such parameters. */
export function wantSmallInt(fnName: string, param: string, v: Value): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint')
    throw new StarlarkError(`${fnName}: for parameter ${param}: ${v} out of range`);
  throw paramError(fnName, param, v, 'int');
}

export function wantBool(fnName: string, param: string, v: Value): boolean {
  if (typeof v !== 'boolean') throw paramError(fnName, param, v, 'bool');
  return v;
}
