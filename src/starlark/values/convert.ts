import { Bytes } from './bytes.js';
import { Dict } from './dict.js';
import { List } from './list.js';
import { Range } from './range.js';
import { Secret } from './secret.js';
import { StarSet } from './set.js';
import { Tuple } from './tuple.js';
import { typeName } from './type-name.js';
import { intFromNumber, None, normInt, SFloat, StarlarkError, type Value } from './value.js';

/** JSON-like JS data accepted by `toStarlark`. */
export type JSLike =
  | null
  | undefined
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | JSLike[]
  | Map<unknown, JSLike>
  | { [k: string]: JSLike };

/**
 * JS → Starlark: integral numbers become ints, other numbers floats, arrays lists, plain
 * objects and Maps dicts (insertion order kept), Uint8Array bytes, null/undefined None.
 */
export function toStarlark(js: unknown): Value {
  switch (typeof js) {
    case 'string':
    case 'boolean':
      return js;
    case 'number':
      return Number.isInteger(js) ? intFromNumber(js) : new SFloat(js);
    case 'bigint':
      return normInt(js);
    case 'undefined':
      return None;
    case 'object': {
      if (js === null) return None;
      if (Array.isArray(js)) return new List(js.map(toStarlark));
      if (js instanceof Uint8Array) return new Bytes(js.slice());
      const d = new Dict();
      const proto: unknown = Object.getPrototypeOf(js);
      if (!(js instanceof Map) && proto !== Object.prototype && proto !== null) {
        // Class instances (Date, Error, ...) have no faithful JSON-like form.
        throw new StarlarkError(
          `cannot convert JS ${js.constructor.name} object to a Starlark value`,
        );
      }
      if (js instanceof Map) for (const [k, v] of js) d.put(toStarlark(k), toStarlark(v));
      else for (const [k, v] of Object.entries(js)) d.put(k, toStarlark(v));
      return d;
    }
    default:
      throw new StarlarkError(`cannot convert JS ${typeof js} to a Starlark value`);
  }
}

/**
 * Starlark → JS: ints become numbers (bigint beyond 2^53 so they stay exact), floats
 * numbers, lists/tuples/sets arrays, dicts with all-string keys plain objects (in order)
 * and other dicts Maps, bytes Uint8Array, None null, a secret its handle's text (`<secret NAME>`,
 * never the value). Other values are rejected.
 */
export function toJS(v: Value): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
    case 'number':
    case 'bigint':
      return v;
    default:
      if (v === None) return null;
      if (v instanceof SFloat) return v.v;
      if (v instanceof List || v instanceof Tuple) return v.items.map(toJS);
      if (v instanceof StarSet) return v.keyList().map(toJS);
      if (v instanceof Range) return Array.from({ length: v.len }, (_, i) => v.at(i));
      if (v instanceof Bytes) return v.data.slice();
      if (v instanceof Dict) {
        const entries = v.entries();
        if (entries.every(([k]) => typeof k === 'string')) {
          const o: Record<string, unknown> = {};
          for (const [k, val] of entries) {
            // defineProperty keeps a "__proto__" key as data instead of changing the prototype.
            Object.defineProperty(o, k as string, {
              value: toJS(val),
              enumerable: true,
              writable: true,
              configurable: true,
            });
          }
          return o;
        }
        return new Map(entries.map(([k, val]) => [toJS(k), toJS(val)]));
      }
      if (v instanceof Secret) return v.repr();
      throw new StarlarkError(`cannot convert ${typeName(v)} to a JS value`);
  }
}
