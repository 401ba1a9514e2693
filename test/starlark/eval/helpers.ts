import { execModule, toJS, type ExecModuleOptions } from '../../../src/starlark/index.js';

/** Runs `src` and returns the JS form of its global `name` (default `result`). */
export function run(src: string, opts: Partial<ExecModuleOptions> = {}, name = 'result'): unknown {
  const m = execModule({ file: 'e.star', source: src, ...opts });
  const v = m.globals.get(name);
  return v === undefined ? undefined : toJS(v);
}

/** Runs `src` expecting a runtime error; returns the error. */
export function fails(
  src: string,
  opts: Partial<ExecModuleOptions> = {},
): Error & { bare?: string } {
  try {
    execModule({ file: 'e.star', source: src, ...opts });
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected failure');
}
