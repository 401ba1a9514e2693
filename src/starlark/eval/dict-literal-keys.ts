import type * as A from '../syntax/ast.js';
import { smallTable } from '../values/index.js';

/**
 * The keys of a dict literal that `Dict.literal` may build: distinct string constants, at most
 * `smallTable` of them (a record such as `{"name": n, "age": a}`); null for any other literal,
 * which is built entry by entry (duplicate keys fail there, at run time, as in starlark-go).
 */
export function literalStringKeys(e: A.DictExpr): string[] | null {
  if (e.entries.length === 0 || e.entries.length > smallTable) return null;
  const keys: string[] = [];
  for (const { key } of e.entries) {
    if (key.kind !== 'Literal' || key.value.type !== 'string') return null;
    if (keys.includes(key.value.v)) return null;
    keys.push(key.value.v);
  }
  return keys;
}
