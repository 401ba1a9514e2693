import { None, SFloat, StarlarkError, StarlarkObject, type Value } from './value.js';

/** java.lang.String.hashCode over UTF-16 code units, as both conformance suites require. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** 32-bit FNV-1a, used by starlark-go for `hash(bytes)`. */
export function fnv32a(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Canonical table key of a float: integral floats share the key of the equal int. */
export function floatKey(f: number): unknown {
  if (Number.isInteger(f)) {
    if (Number.isSafeInteger(f)) return f === 0 ? 0 : f;
    return BigInt(f);
  }
  return f;
}

/**
 * Key under which a value is stored in a dict or set. Primitives map to themselves (JS Map
 * compares numbers, bigints and strings by value); a string result from an object marks a
 * composite key that tables keep apart from user strings.
 */
export function tableKey(k: Value): unknown {
  switch (typeof k) {
    case 'string':
    case 'number':
    case 'bigint':
    case 'boolean':
      return k;
    default:
      if (k instanceof SFloat) return floatKey(k.v);
      if (k === None) return k;
      return (k as StarlarkObject).hashKey();
  }
}

const objectIds = new WeakMap<object, number>();
let nextObjectId = 1;

function objectId(o: object): number {
  let id = objectIds.get(o);
  if (id === undefined) {
    id = nextObjectId++;
    objectIds.set(o, id);
  }
  return id;
}

/** Encodes one element of a composite key so that distinct keys give distinct strings. */
export function compositeKeyPart(v: Value): string {
  const k = tableKey(v);
  switch (typeof k) {
    case 'string':
      // A string from tableKey is either a user string or a nested composite key.
      return typeof v === 'string' ? `s${k.length}:${k}` : `c${k.length}:${k}`;
    case 'number':
    case 'bigint':
      return `n${k}`;
    case 'boolean':
      return k ? 'T' : 'F';
    default:
      return k === None ? 'N' : `o${objectId(k as object)}`;
  }
}

/** The 32-bit hash that `hash(x)` reports for values other than str and bytes. */
export function hashValue(x: Value): number {
  switch (typeof x) {
    case 'string':
      return javaStringHash(x);
    case 'number':
      return hashNumber(x);
    case 'bigint':
      return Number(BigInt.asUintN(32, x ^ (x >> 32n)));
    case 'boolean':
      return x ? 1 : 0;
    default:
      if (x instanceof SFloat) {
        const k = floatKey(x.v);
        if (typeof k === 'bigint') return hashValue(k);
        return hashNumber(k as number);
      }
      if (x === None) return 0;
      return (x as StarlarkObject).hash();
  }
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

function hashNumber(n: number): number {
  if (Number.isInteger(n) && n >= -0x80000000 && n <= 0xffffffff) return n >>> 0;
  f64[0] = n;
  return (u32[0]! ^ Math.imul(u32[1]!, 31)) >>> 0;
}

export function unhashable(typeName: string): StarlarkError {
  return new StarlarkError(`unhashable type: ${typeName}`);
}
