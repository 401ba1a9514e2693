import { expect } from 'vitest';
import {
  StarFunction,
  callFunction,
  execModule,
  repr,
  type ExecModuleOptions,
  type Value,
} from '../../src/starlark/index.js';

/**
 * Runs Starlark on both backends (generated code and closures) and compares what a script can
 * observe: the module's values and printed output, the step count, or the error's message,
 * call stack and traceback.
 */
export interface Outcome {
  globals?: string;
  steps?: number;
  error?: string;
  stack?: string;
  traceback?: string;
}

export function outcome(
  src: string,
  codegen: boolean,
  opts: Partial<ExecModuleOptions> = {},
): Outcome {
  let printed = '';
  try {
    const m = execModule({
      file: 'g.star',
      source: src,
      codegen,
      print: (s) => (printed += s + '\n'),
      ...opts,
    });
    const globals = [...m.globals]
      .filter(([, v]) => !(v instanceof StarFunction))
      .map(([k, v]) => `${k}=${repr(v)}`)
      .join('; ');
    return { globals: globals + printed, steps: m.steps };
  } catch (e) {
    const err = e as Error & { callStack?: unknown; traceback?: string };
    return {
      error: err.message,
      stack: JSON.stringify(err.callStack),
      traceback: err.traceback ?? '',
    };
  }
}

/** Expects both backends to agree on `src`; returns the generated code's outcome. */
export function same(src: string, opts: Partial<ExecModuleOptions> = {}): Outcome {
  const gen = outcome(src, true, opts);
  expect(gen).toEqual(outcome(src, false, opts));
  return gen;
}

/**
 * Runs the module `src`, then calls its `f` with `args` once the module is frozen, on each
 * backend (generated code first); each call's error message and call stack, or null.
 */
export function errorsAfterFreeze(src: string, args: Value[]): Array<[string, string] | null> {
  return [true, false].map((codegen) => {
    const m = execModule({ file: 'g.star', source: src, codegen });
    try {
      callFunction(m.globals.get('f')!, args, null);
    } catch (e) {
      const err = e as Error & { callStack?: unknown };
      return [err.message, JSON.stringify(err.callStack)];
    }
    return null;
  });
}
