import { None, type Builtin, type Value } from '../values/index.js';
import { convertBuiltins } from './builtins-convert.js';
import { coreBuiltins } from './builtins-core.js';
import { sortBuiltins } from './builtins-sort.js';
import './methods.js';

export interface UniverseOptions {
  /** Include `set` (starlark-go's `option:set`; the bazel spec always has it). Default true. */
  set?: boolean;
  /** Include the go dialect's `chr` and `ord`. Default true. */
  goBuiltins?: boolean;
}

function build(options: UniverseOptions): Map<string, Value> {
  const m = new Map<string, Value>();
  m.set('None', None);
  m.set('True', true);
  m.set('False', false);
  const all: Builtin[] = [...coreBuiltins, ...convertBuiltins, ...sortBuiltins];
  for (const b of all) {
    if (b.name === 'set' && options.set === false) continue;
    if ((b.name === 'chr' || b.name === 'ord') && options.goBuiltins === false) continue;
    m.set(b.name, b);
  }
  return new Map([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Predeclared names of every Starlark program (True/False/None included). Shared: treat as read-only. */
export const universe: ReadonlyMap<string, Value> = build({});

/** A universe honouring dialect options (a fresh map the caller may extend). */
export function createUniverse(options: UniverseOptions = {}): Map<string, Value> {
  return build(options);
}
